/**
 * "Prompt Insight: Sample Production into Tests…": production requests of the prompt become cases in its
 * tests file, as `prompt-insight sample` makes them (core/sampling/sampleIntoTests.ts): the version, the
 * range, the strategy and how many are asked with the CLI's defaults, the redacted cases are previewed in a
 * read-only document, and nothing is written before the user chooses to write them.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { showRendered } from '../shared/showRendered';
import { sidecarPathFor } from '../../core/adherence/testCases';
import { STRATEGIES, type Strategy } from '../../core/sampling/productionSample';
import { planSample, SampleError, writeSample, type SamplePlan } from '../../core/sampling/sampleIntoTests';
import { CLIENT_COMMANDS } from '../../protocol/commands';
import { samplePreviewMarkdown, writeButtonLabel } from './productionActionText';
import { pickRange, productionTarget, withCancellableProgress, type ProductionTarget, type ReadOnlyDocuments } from './productionTarget';
import type { ProductionRequester } from './showProduction';

/** The CLI's defaults: `--n 50`, `--seed 1`. */
const DEFAULT_CASES = 50;
const SEED = 1;

const STRATEGY_WORDS: Record<Strategy, string> = {
  random: 'a random draw of the requests (the default)',
  slowest: 'the slowest requests that answered',
  errors: 'requests that failed: timeouts, rate limits, server errors, empty answers',
  stratified: 'an equal share per prompt version',
};

export async function sampleIntoTests(args: unknown, request: ProductionRequester, documents: ReadOnlyDocuments, log: vscode.LogOutputChannel): Promise<SamplePlan | undefined> {
  const target = await productionTarget(args, 'sample production into tests', request);
  if (!target) return undefined;
  if (/\.prompt\.ya?ml$/i.test(target.file)) {
    void vscode.window.showInformationMessage(`Prompt Insight: ${target.label} keeps its cases in testData; sample into a tests file with the command line: prompt-insight sample ${basename(target.file)} --out NAME.tests.yaml`);
    return undefined;
  }
  const version = await pickVersion(target);
  if (version === undefined) return undefined;
  const range = await pickRange(target, 'day');
  if (!range) return undefined;
  const strategy = await vscode.window.showQuickPick(
    STRATEGIES.map((s) => ({ label: s, description: STRATEGY_WORDS[s] })),
    { title: 'Which requests become cases', ignoreFocusOut: true },
  );
  if (!strategy) return undefined;
  const count = await vscode.window.showInputBox({
    title: 'How many cases at most',
    value: String(DEFAULT_CASES),
    ignoreFocusOut: true,
    validateInput: (v) => (/^\d+$/.test(v.trim()) && Number(v) >= 1 && Number(v) <= 10_000 ? undefined : 'A whole number from 1 to 10000'),
  });
  if (count === undefined) return undefined;
  const out = sidecarPathFor(target.file);
  const outName = basename(out);
  let plan: SamplePlan | undefined;
  try {
    plan = await withCancellableProgress(`Prompt Insight: reading production requests of ${target.prompt.name}…`, (signal) =>
      planSample({
        file: target.file,
        prompt: target.prompt,
        traces: target.traces,
        out,
        n: Number(count),
        strategy: strategy.label as Strategy,
        seed: SEED,
        ...(range.sinceMs !== undefined ? { sinceMs: range.sinceMs } : {}),
        ...(range.untilMs !== undefined ? { untilMs: range.untilMs } : {}),
        ...(version !== null ? { version } : {}),
        nowMs: Date.now(),
        willWrite: true,
        open: target.open,
        signal,
      }),
    );
  } catch (error) {
    log.warn(`Sample into tests of ${target.label}: ${(error as Error).message}`);
    void vscode.window.showErrorMessage(`Prompt Insight could not sample ${target.label}: ${(error as Error).message}${error instanceof SampleError ? '' : ' (details in the Prompt Insight output)'}`);
    return undefined;
  }
  if (!plan) return undefined;
  if (plan.result.cases.length === 0) {
    const { sink, result } = plan;
    const why = sink.matched === 0 ? `no request of ${target.prompt.name} matches (${range.words}${version !== null ? `, version ${version}` : ''})` : `${sink.matched} requests match, none with a new captured input${result.alreadyInFile ? ` (${result.alreadyInFile} are already cases in ${outName})` : sink.withoutInput ? ' (the app does not record gen_ai.input.messages)' : ''}`;
    void vscode.window.showInformationMessage(`Prompt Insight: nothing to add to ${outName}: ${why}.`);
    return plan;
  }
  const preview = documents.setTitled(`Sample preview — ${target.prompt.name}`, target.label, samplePreviewMarkdown(plan, { file: target.label, testsFile: outName, range: range.words }));
  await showRendered(preview);
  const write = writeButtonLabel(plan.result.cases.length, outName);
  const choice = await vscode.window.showInformationMessage(`Prompt Insight: ${plan.result.cases.length} redacted production case${plan.result.cases.length === 1 ? '' : 's'} previewed. Append them to ${outName}?`, write, 'Cancel');
  if (choice !== write) return undefined;
  try {
    writeSample(plan);
  } catch (error) {
    void vscode.window.showErrorMessage(`Prompt Insight: nothing was written to ${outName}: ${(error as Error).message}`);
    return undefined;
  }
  log.info(`Sample into tests: appended ${plan.result.cases.length} cases to ${out}.`);
  void afterWriting(target, plan, out);
  return plan;
}

/** The version asked for: a label production saw, or null for every version (the CLI's default); undefined when cancelled. */
async function pickVersion(target: ProductionTarget): Promise<string | null | undefined> {
  type Item = vscode.QuickPickItem & { version: string | null };
  const every: Item = { label: 'Every version', description: target.versions.length ? `${target.versions.reduce((n, v) => n + v.requests, 0)} requests` : '', version: null };
  const seen: Item[] = target.versions.map((v) => ({ label: v.version, description: `${v.requests} requests · ${v.detail}${v.thisText ? ' · this text' : ''}`, version: v.version }));
  const asked = target.args?.version;
  const first = asked ? (seen.find((i) => i.version === asked) ?? { label: asked, description: 'from the Production page', version: asked }) : undefined;
  const items = first ? [first, every, ...seen.filter((i) => i !== first)] : [every, ...seen];
  const picked = await vscode.window.showQuickPick(items, { title: 'Sample requests of which version', placeHolder: target.versionsProblem ? `Versions production saw are not known yet: ${target.versionsProblem}` : undefined, ignoreFocusOut: true });
  return picked ? picked.version : undefined;
}

async function afterWriting(target: ProductionTarget, plan: SamplePlan, out: string): Promise<void> {
  const choice = await vscode.window.showInformationMessage(`Added ${plan.result.cases.length} case${plan.result.cases.length === 1 ? '' : 's'} to ${basename(out)}`, 'Open', 'Compare with these cases');
  if (choice === 'Open') await vscode.window.showTextDocument(vscode.Uri.file(out));
  if (choice === 'Compare with these cases') {
    // The head's tests are the new cases: compare judges the change with them (the compare panel's `policy`).
    await vscode.commands.executeCommand(CLIENT_COMMANDS.compareRevisions, { uri: target.uri.toString(), promptName: target.prompt.name, promptIndex: target.promptIndex, policy: 'head' });
  }
}
