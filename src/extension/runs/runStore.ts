/**
 * The workspace's run store as the editor uses it: a store it refuses (a link, a directory) is
 * reported to the user rather than thrown, and the CodeLens figures of a prompt read back from it.
 */
import * as vscode from 'vscode';
import type { PromptRunPlan } from '../../core/run/promptRun';
import { promptContentHash } from '../../core/store/runKey';
import { promptRunsView, type PromptRunsView } from '../../core/store/promptRuns';
import { ResultsStore } from '../../core/store/resultsStore';

/** Runs `use` on the store at `storePath`; a store it refuses is reported, and undefined returned. */
export function usingStore<T>(storePath: string, use: (store: ResultsStore) => T): T | undefined {
  return reportingStoreErrors(() => use(new ResultsStore(storePath)));
}

/** Runs `read`; a store it refuses (a link, a directory) is reported, and undefined returned. */
export function reportingStoreErrors<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    void vscode.window.showErrorMessage(`Prompt Insight: ${(error as Error).message}`);
    return undefined;
  }
}

/** What the CodeLens shows for this prompt now: the store's runs of this exact text (core/store/promptRuns.ts). */
export function lensSummary(store: ResultsStore, plan: PromptRunPlan): PromptRunsView | undefined {
  try {
    const records = store.read((r) => r.file === plan.file && r.prompt === plan.prompt.name).records;
    return promptRunsView(records, { file: (f) => f === plan.file, prompt: plan.prompt.name, promptHash: promptContentHash(plan.request) });
  } catch {
    return undefined;
  }
}
