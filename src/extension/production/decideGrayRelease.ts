/**
 * "Prompt Insight: Decide Gray Release": `prod --decide` for the active prompt (core/release/grayRelease.ts)
 * — the head and base versions picked from those production saw (newest as head, the one before as base,
 * as `prod` compares them), whose tests judge (the base's by default), the range — and the decision,
 * PROMOTE / ROLL BACK / NOT ENOUGH DATA YET, with its reasons in a read-only document and one line in a notification.
 */
import * as vscode from 'vscode';
import { showRendered } from '../shared/showRendered';
import { ReleaseError } from '../../core/release/baseSide';
import { decideGrayRelease as decide, verdictLine, type GrayReleaseResult } from '../../core/release/grayRelease';
import { grayReleaseMarkdown } from './productionActionText';
import { pickRange, productionTarget, withCancellableProgress, type ProductionTarget, type ReadOnlyDocuments, type SeenVersion } from './productionTarget';
import type { ProductionRequester } from './showProduction';

export async function decideGrayRelease(args: unknown, request: ProductionRequester, documents: ReadOnlyDocuments, log: vscode.LogOutputChannel): Promise<GrayReleaseResult | undefined> {
  const target = await productionTarget(args, 'decide a gray release', request);
  if (!target) return undefined;
  if (target.versions.length < 2) {
    const seen = target.versions.map((v) => `${v.version} (${v.requests} requests)`).join(', ');
    void vscode.window.showInformationMessage(`Prompt Insight: a gray release needs requests of two versions of ${target.prompt.name}; ${target.versionsProblem ?? `production saw only ${seen}`}.`);
    return undefined;
  }
  const head = await pickVersion(target, target.versions, target.args?.version ?? target.versions[0]!.version, 'Head: the version being rolled out');
  if (!head) return undefined;
  const others = target.versions.filter((v) => v.version !== head);
  const base = await pickVersion(target, others, others[0]!.version, `Base: the version ${head} is judged against`);
  if (!base) return undefined;
  const policy = await vscode.window.showQuickPick(
    [
      { label: "Judge with base's tests", description: `${base}'s checks and SLOs (the default: a change cannot relax its own gate)`, from: 'base' as const },
      { label: "Judge with head's tests", description: `${head}'s checks and SLOs, applied deliberately; what they relax is listed`, from: 'head' as const },
    ],
    { title: 'Judge with', ignoreFocusOut: true },
  );
  if (!policy) return undefined;
  const range = await pickRange(target, 'all');
  if (!range) return undefined;
  const run = (registryRev?: string) =>
    withCancellableProgress(`Prompt Insight: deciding the gray release of ${target.prompt.name}…`, (signal) =>
      decide({
        file: target.file,
        promptName: target.prompt.name,
        traces: target.traces,
        base,
        head,
        policyFrom: policy.from,
        ...(registryRev !== undefined ? { registryRev } : {}),
        ...(range.sinceMs !== undefined ? { sinceMs: range.sinceMs } : {}),
        ...(range.untilMs !== undefined ? { untilMs: range.untilMs } : {}),
        open: target.open,
        signal,
      }),
    );
  let result: GrayReleaseResult | undefined;
  try {
    try {
      result = await run();
    } catch (error) {
      if (!(error instanceof ReleaseError && error.kind === 'no-release-branch')) throw error;
      // No upstream and no origin/HEAD: the user names the branch being released into, as --registry-rev does.
      const named = await vscode.window.showInputBox({ title: 'The branch being released into', prompt: `The version table that names the base is read from the branch being released into, and ${error.message.replace(/^.*?, and /, '')}. Name it (a branch or commit):`, value: 'main', ignoreFocusOut: true });
      if (!named?.trim()) return undefined;
      result = await run(named.trim());
    }
  } catch (error) {
    log.warn(`Decide gray release of ${target.label}: ${(error as Error).message}`);
    void vscode.window.showErrorMessage(`Prompt Insight could not decide the gray release of ${target.prompt.name}: ${(error as Error).message}`);
    return undefined;
  }
  if (!result) return undefined;
  const text = grayReleaseMarkdown(result, { file: target.label, range: range.words, policy: policy.from });
  const uri = documents.setTitled(`Gray release — ${target.prompt.name}`, target.label, text);
  await showRendered(uri);
  const line = `Gray release of ${target.prompt.name}: ${verdictLine(result.decision)}`;
  log.info(line);
  if (result.decision.decision === 'roll-back') void vscode.window.showWarningMessage(line);
  else void vscode.window.showInformationMessage(line);
  return result;
}

async function pickVersion(target: ProductionTarget, versions: readonly SeenVersion[], preferred: string, title: string): Promise<string | undefined> {
  const items = versions.map((v) => ({ label: v.version, description: `${v.requests} requests · ${v.detail}${v.thisText ? ' · this text' : ''}` }));
  const first = items.findIndex((i) => i.label === preferred);
  const ordered = first > 0 ? [items[first]!, ...items.filter((_, i) => i !== first)] : first === 0 ? items : [{ label: preferred, description: `from the Production page; not among the versions ${target.prompt.name}'s sources show` }, ...items];
  return (await vscode.window.showQuickPick(ordered, { title, ignoreFocusOut: true }))?.label;
}
