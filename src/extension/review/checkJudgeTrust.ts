/**
 * "Prompt Insight: Check Judge Trust": the trust card of every judged check of the prompt, as
 * `prompt-insight judge-check` gives it, against the judge of the settings and the labels file beside
 * the prompt; shown rendered beside the editor. The judge's verdicts are kept in the workspace's
 * storage, so checking again asks only about labels added since.
 */
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { labelsPathFor, readLabelsFileSync } from '../../core/adherence/labelsFile';
import { humanVerdicts, judgedChecks, trustCardOf, type TrustCard } from '../../core/adherence/trustCard';
import { readTrustSummaries, trustSummariesPath, withTrustSummaries } from '../../core/adherence/trustSummaries';
import { makeFolders, writeOutputFile } from '../../core/files/fileWrite';
import { isPromptCommandArgs } from '../../protocol/commands';
import type { EndpointTransports } from '../endpoints/endpointTransports';
import { judgeEndpointOfSettings, judgeIdOf, judgeOfSettings, judgeVerdictStore, trustBarOfSettings } from '../endpoints/judgeEndpoint';
import { showRendered } from '../shared/showRendered';
import { storePathOf } from '../shared/storePath';
import { fileWorkspaceFolders } from '../shared/workspaceFolders';
import { savedPrompt } from './savedPrompt';
import { trustCardsMarkdown } from './trustCardText';

/** Where the cards are shown from: the extension's read-only documents (renderedDocuments.ts). */
export interface CardDocuments {
  setTitled(title: string, fileLabel: string, text: string): vscode.Uri;
}

export async function checkJudgeTrust(context: vscode.ExtensionContext, transports: EndpointTransports, documents: CardDocuments, log: vscode.LogOutputChannel, args: unknown): Promise<TrustCard[] | undefined> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage('Prompt Insight asks a judge only in a trusted workspace (labelled answers are sent to it).');
    return undefined;
  }
  const target = await savedPrompt(args, 'check its judge');
  if (!target) return undefined;
  const { uri, prompt } = target;
  const checks = judgedChecks(target.suite);
  if (checks.length === 0) {
    void vscode.window.showInformationMessage(`Prompt Insight: ${prompt.name} has no judged check (an llm-rubric, a GitHub llm evaluator, or a grounded check such as hallucination): there is no judge to trust.`);
    return undefined;
  }
  const labelsPath = labelsPathFor(uri.fsPath);
  let read;
  try {
    read = readLabelsFileSync(labelsPath, { workspaceFolders: fileWorkspaceFolders() });
  } catch (error) {
    void vscode.window.showErrorMessage(`Prompt Insight: ${basename(labelsPath)} cannot be read: ${(error as Error).message}`);
    return undefined;
  }
  if (!read || read.labels.length === 0) {
    const review = 'Review Answers…';
    const choice = await vscode.window.showInformationMessage(`Prompt Insight: no labels yet (${basename(labelsPath)}). Label answers first: the judge is set against people's pass and fail.`, review);
    if (choice === review) void vscode.commands.executeCommand('promptInsight.reviewAnswers', isPromptCommandArgs(args) ? args : undefined);
    return undefined;
  }
  for (const problem of read.problems) log.warn(`Judge trust: ${problem}`);
  const judgeSetting = judgeEndpointOfSettings((m) => log.warn(m));
  if (!judgeSetting) {
    void vscode.window.showInformationMessage('Prompt Insight: set the judge first (promptInsight.judge.endpoint and promptInsight.judge.model).');
    return undefined;
  }
  const bar = trustBarOfSettings();
  const judgeId = judgeIdOf(judgeSetting);
  const store = judgeVerdictStore(context);
  if (store.problem) log.warn(store.problem);
  const labels = read.labels;
  const total = checks.reduce((sum, check) => sum + humanVerdicts(labels, check.label).length, 0);

  const cards = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Prompt Insight: setting the judge against ${total} labels`, cancellable: true }, async (progress, token) => {
    const stop = new AbortController();
    const listener = token.onCancellationRequested(() => stop.abort());
    try {
      const judge = await judgeOfSettings(transports, (m) => (log.warn(m), void vscode.window.showWarningMessage(`Prompt Insight: ${m}`)), stop.signal);
      if (!judge) return undefined;
      const made: TrustCard[] = [];
      let done = 0;
      for (const assertion of checks) {
        const name = assertion.label;
        const card = await trustCardOf(assertion, labels, judge, {
          bar, signal: stop.signal, cache: { store, judgeId }, suite: target.suite,
          onProgress: () => progress.report({ message: `${++done} of ${total} · ${name}`, increment: 100 / Math.max(total, 1) }),
        });
        made.push(card);
        const notKept = store.saveOrSay();
        if (notKept) log.warn(`Judge trust: the judge's verdicts were not kept: ${notKept}`);
        if (stop.signal.aborted) return undefined;
      }
      return made;
    } finally {
      listener.dispose();
    }
  });
  if (!cards) return undefined;
  rememberCards(context, labelsPath, cards, judgeId, log);
  const fileLabel = vscode.workspace.asRelativePath(uri, false);
  const text = trustCardsMarkdown(cards, { prompt: prompt.name, file: fileLabel, labelsFile: basename(labelsPath), judge: judgeId, bar });
  await showRendered(documents.setTitled(`Judge trust — ${prompt.name}`, fileLabel, text));
  const untrusted = cards.filter((c) => !c.trusted).map((c) => c.check);
  const line = untrusted.length === 0 ? `the judge is trusted for ${cards.length === 1 ? 'its check' : `all ${cards.length} checks`}` : `the judge is not trusted for ${untrusted.join(', ')}`;
  log.info(`Judge trust of ${prompt.name}: ${line}`);
  void vscode.window.showInformationMessage(`Prompt Insight: ${prompt.name}: ${line}.`);
  return cards;
}

/** The cards' verdicts, kept beside the run store for the tests file's hover (core/adherence/trustSummaries.ts). */
function rememberCards(context: vscode.ExtensionContext, labelsPath: string, cards: readonly TrustCard[], judgeId: string, log: vscode.LogOutputChannel): void {
  const path = trustSummariesPath(storePathOf(context));
  try {
    makeFolders(dirname(path));
    writeOutputFile(path, withTrustSummaries(readTrustSummaries(path), labelsPath, cards, judgeId, new Date()), { what: 'judge trust summaries', cwd: dirname(path) });
  } catch (error) {
    log.warn(`Judge trust: the cards were not kept for the hover: ${(error as Error).message}`);
  }
}
