/**
 * "Prompt Insight: Review Answers…": the answers of the prompt's stored runs and comparisons, one check
 * at a time, for people to label pass or fail (core/review/reviewQueue.ts). The labels go to the
 * prompt's labels file (NAME.labels.jsonl beside it, committed: the team's gold set), signed with the
 * reviewer's git name and email. Asked for, the queue is balanced: half the answers the judge passed,
 * half it failed (the judge's verdicts are not shown, so they do not lead the reviewer).
 */
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { groundingOf, judgeLabelled } from '../../core/adherence/labelledVerdict';
import type { TestSuite } from '../../core/adherence/testCases';
import { labelsPathFor, readLabelsFileSync } from '../../core/adherence/labelsFile';
import { CARDED_TYPES } from '../../core/adherence/trustCard';
import { findWorkspaceRoot } from '../../core/files/workspaceFile';
import { git } from '../../core/history/git';
import { balancedQueue, notYetLabelled, reviewChecks, reviewItemsFromRuns, type ReviewItem } from '../../core/review/reviewQueue';
import { ResultsStore } from '../../core/store/resultsStore';
import type { EndpointTransports } from '../endpoints/endpointTransports';
import { judgeOfSettings } from '../endpoints/judgeEndpoint';
import { storePathOf } from '../shared/storePath';
import { fileWorkspaceFolders } from '../shared/workspaceFolders';
import { openReviewPanel } from './reviewPanel';
import { savedPrompt } from './savedPrompt';

export async function reviewAnswers(context: vscode.ExtensionContext, transports: EndpointTransports, log: vscode.LogOutputChannel, args: unknown): Promise<vscode.WebviewPanel | undefined> {
  const target = await savedPrompt(args, 'review its answers');
  if (!target) return undefined;
  const { uri, prompt, suite } = target;
  const checks = reviewChecks(suite);
  if (checks.length === 0) {
    void vscode.window.showInformationMessage(`Prompt Insight: ${prompt.name} has no checks to label. Add assertions to its tests (an llm-rubric for what a judge decides), then review.`);
    return undefined;
  }
  const fileLabel = vscode.workspace.asRelativePath(uri, false);
  let records;
  try {
    records = new ResultsStore(storePathOf(context)).read((r) => r.file === fileLabel && r.prompt === prompt.name).records;
  } catch (error) {
    // A store it refuses (a link, a folder): said, nothing to review.
    void vscode.window.showErrorMessage(`Prompt Insight: ${(error as Error).message}`);
    return undefined;
  }
  const items = reviewItemsFromRuns(records, suite, checks, prompt.inputs);
  log.info(`Review: ${items.length} answers to label of ${prompt.name} from ${records.length} stored runs (checks: ${checks.map((c) => c.name).join(', ')}; sample inputs: ${Object.keys(prompt.inputs).join(', ') || 'none'})`);
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`Prompt Insight: ${prompt.name} has no answers to review yet. Run it (▶ Run ×N) or compare revisions; their answers come here.`);
    return undefined;
  }

  const author = await reviewer(dirname(uri.fsPath));
  if (!author) return undefined;
  const labelsPath = labelsPathFor(uri.fsPath);
  const workspaceFolders = fileWorkspaceFolders();
  let workspaceRoot: string;
  let queue: ReviewItem[];
  try {
    workspaceRoot = findWorkspaceRoot(uri.fsPath, { workspaceFolders });
    const read = readLabelsFileSync(labelsPath, { workspaceFolders });
    for (const problem of read?.problems ?? []) log.warn(`Review: ${problem}`);
    queue = notYetLabelled(items, read?.labels ?? [], author);
  } catch (error) {
    void vscode.window.showErrorMessage(`Prompt Insight: ${basename(labelsPath)} cannot be read: ${(error as Error).message}`);
    return undefined;
  }
  if (queue.length === 0) {
    void vscode.window.showInformationMessage(`Prompt Insight: you have labelled all ${items.length} answers of ${prompt.name} (${basename(labelsPath)}). New runs bring new answers.`);
    return undefined;
  }

  const judged = checks.some((c) => CARDED_TYPES.has(c.assertion.type));
  if (judged) {
    const order = await vscode.window.showQuickPick(
      [
        { label: 'In order', description: `${queue.length} answers to label, oldest first`, balanced: false },
        { label: 'Balanced', description: "half the answers the judge passed, half it failed (the judge's verdicts stay hidden)", balanced: true },
      ],
      { title: `Review answers of ${prompt.name}`, ignoreFocusOut: true },
    );
    if (!order) return undefined;
    if (order.balanced) {
      const balanced = await judgedQueue(queue, suite, transports, log);
      if (!balanced) return undefined;
      queue = balanced;
    }
  }
  return openReviewPanel(context, { fileLabel, promptText: target.text, prompt, items: queue, author, labelsPath, workspaceRoot }, log);
}

/** The judge's verdict on each item, then half passes and half fails; undefined when cancelled or no judge is set. */
async function judgedQueue(queue: ReviewItem[], suite: TestSuite, transports: EndpointTransports, log: vscode.LogOutputChannel): Promise<ReviewItem[] | undefined> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Prompt Insight: asking the judge about the answers', cancellable: true }, async (progress, token) => {
    const stop = new AbortController();
    const listener = token.onCancellationRequested(() => stop.abort());
    try {
      const judge = await judgeOfSettings(transports, (m) => void vscode.window.showWarningMessage(`Prompt Insight: ${m}`), stop.signal);
      if (!judge) {
        void vscode.window.showInformationMessage('Prompt Insight: a balanced queue needs the judge: set promptInsight.judge.endpoint (and .model).');
        return undefined;
      }
      const judgedItems: ReviewItem[] = [];
      for (const [index, item] of queue.entries()) {
        if (stop.signal.aborted) return undefined;
        progress.report({ message: `${index + 1} of ${queue.length}`, increment: 100 / queue.length });
        if (!CARDED_TYPES.has(item.check.assertion.type)) continue;
        const verdict = await judgeLabelled(item.check.assertion, item, judge, groundingOf(suite, item.check.assertion, item.vars));
        if (verdict.decided) judgedItems.push({ ...item, judge: verdict.says });
      }
      const balanced = balancedQueue(judgedItems);
      log.info(`Review: the judge passed ${judgedItems.filter((i) => i.judge === 'pass').length} and failed ${judgedItems.filter((i) => i.judge === 'fail').length} of ${queue.length} answers; ${balanced.length} in the balanced queue.`);
      if (balanced.length === 0) {
        void vscode.window.showInformationMessage('Prompt Insight: the judge passed all the answers or failed all of them, so a balanced queue is empty; review in order instead.');
        return undefined;
      }
      return balanced;
    } finally {
      listener.dispose();
    }
  });
}

/** "Name <email>" from git's user settings (what a commit of the labels would record); asked when git has none. */
async function reviewer(folder: string): Promise<string | undefined> {
  const setting = async (key: string) => {
    try {
      return (await git(folder, ['config', '--get', key], { timeoutMs: 5_000 })).trim();
    } catch {
      return '';
    }
  };
  const [name, email] = [await setting('user.name'), await setting('user.email')];
  if (name) return (email ? `${name} <${email}>` : name).slice(0, 320);
  const typed = await vscode.window.showInputBox({
    title: 'Who is labelling? (git has no user.name here)',
    placeHolder: 'Name <email>',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim().length > 0 && v.length <= 320 ? undefined : 'Your name, as the labels should record it'),
  });
  return typed?.trim() || undefined;
}
