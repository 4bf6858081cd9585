/** The `promptInsight.run.*` settings every feature that sends prompts reads (▶ Run, Compare, Find Capacity). */
import * as vscode from 'vscode';
import { CACHE_MODES, type CacheMode } from '../../core/endpoint/serverKind';

export interface RunSettings {
  runs: number;
  concurrency: number;
  warmup: number;
  timeoutMs: number;
  cache: CacheMode;
}

/** One ▶ Run (a single run, no warm-up) or Run ×N (the repeats, concurrency and warm-up of the settings). */
export function runSettings(repeated: boolean): RunSettings {
  const settings = vscode.workspace.getConfiguration('promptInsight');
  return {
    runs: repeated ? settings.get<number>('run.repeats', 10) : 1,
    concurrency: repeated ? settings.get<number>('run.concurrency', 1) : 1,
    warmup: repeated ? settings.get<number>('run.warmup', 0) : 0,
    timeoutMs: settings.get<number>('run.timeoutMs', 60_000),
    cache: runCacheMode(settings.get<string>('run.cache', 'cold')),
  };
}

/** The setting's cache mode; anything unexpected is the default, cold. */
export function runCacheMode(value: string | undefined): CacheMode {
  return (CACHE_MODES as readonly (string | undefined)[]).includes(value) ? (value as CacheMode) : 'cold';
}

/** How run results open: rendered in the Markdown preview (the default) or as their Markdown text. */
export function runResultsView(): 'rendered' | 'text' {
  return vscode.workspace.getConfiguration('promptInsight').get<string>('run.results', 'rendered') === 'text' ? 'text' : 'rendered';
}
