/**
 * Production numbers as the language server holds them: read per prompt file from the configured
 * sources (core/telemetry/prodForEditor.ts, in a worker thread: productionReader.ts) only in a trusted workspace, cached for a minute so hovers
 * and lenses do not hammer a trace folder or a Prometheus server, read in the background (a hover
 * waits a moment, then shows "reading…" and the lenses refresh when the numbers are in), and served
 * stale while a refresh runs.
 */
import { findWorkspaceRoot } from '../core/files/workspaceFile';
import type { FileProduction } from '../core/telemetry/prodForEditor';
import type { ProductionSettings, ProductionSource } from '../core/telemetry/productionSettings';
import { readProductionOffThread } from './productionReader';
import { filePathOfUri } from './uri';

export type ProductionLookup =
  | { state: 'off' }
  | { state: 'restricted' }
  | { state: 'loading'; sources: number }
  | { state: 'ready'; production: FileProduction };

/** Routine reads at info; at warning only what the user should act on (a source that gave nothing, settings to fix). */
export interface ProductionLog {
  info(message: string): void;
  warn(message: string): void;
}

export const PRODUCTION_CACHE_MS = 60_000;
const MAX_CACHED_FILES = 64;

interface Entry {
  value?: FileProduction;
  at: number;
  pending?: Promise<FileProduction>;
  /** When the pending read started: only the first `waitMs` of a read are waited for, so a long read does not slow every hover. */
  startedAt?: number;
}

export class ProductionFigures {
  private sources: ProductionSource[] = [];
  private trusted = false;
  private folders: string[] = [];
  private configKey = '';
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly onRead: () => void,
    private readonly log: ProductionLog,
    private readonly cacheMs = PRODUCTION_CACHE_MS,
  ) {}

  configure(settings: ProductionSettings, workspaceFolders: readonly string[], trusted: boolean): void {
    const key = JSON.stringify([settings.sources, workspaceFolders, trusted]);
    if (key === this.configKey) return;
    this.configKey = key;
    this.sources = settings.sources;
    this.folders = [...workspaceFolders];
    this.trusted = trusted;
    this.entries.clear();
    for (const problem of settings.problems) this.log.warn(`Production sources: ${problem}`);
    if (settings.sources.length && !trusted) this.log.info('Production sources are not read in Restricted Mode: trust the workspace to see production numbers.');
  }

  /**
   * The file's production numbers, waiting for a read that is not cached until at most `waitMs` after it started.
   * `since`: every source read over that time instead of its own setting (the Production page's window), cached apart.
   */
  async lookup(uri: string, waitMs: number, since?: string): Promise<ProductionLookup> {
    if (this.sources.length === 0) return { state: 'off' };
    if (!this.trusted) return { state: 'restricted' };
    const file = filePathOfUri(uri);
    if (!file) return { state: 'off' };
    const key = since === undefined ? file : `${file}\u0000${since}`;
    const entry = this.entries.get(key) ?? { at: 0 };
    const fresh = entry.value && Date.now() - entry.at < this.cacheMs;
    if (!fresh && !entry.pending) this.start(key, file, entry, since);
    if (entry.value) return { state: 'ready', production: entry.value };
    const waitLeft = (entry.startedAt ?? 0) + waitMs - Date.now();
    if (waitLeft <= 0) return { state: 'loading', sources: this.sources.length };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((done) => {
      timer = setTimeout(() => done(undefined), waitLeft);
    });
    const value = await Promise.race([entry.pending!.catch(() => undefined), timeout]);
    clearTimeout(timer);
    return value ? { state: 'ready', production: value } : { state: 'loading', sources: this.sources.length };
  }

  private start(key: string, file: string, entry: Entry, since: string | undefined): void {
    if (!this.entries.has(key) && this.entries.size >= MAX_CACHED_FILES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
    const configKey = this.configKey;
    const sources = since === undefined ? this.sources : this.sources.map((s) => ({ ...s, since }));
    const root = findWorkspaceRoot(file, { workspaceFolders: this.folders });
    entry.startedAt = Date.now();
    this.log.info(`Production: reading ${sources.length} source${sources.length === 1 ? '' : 's'} for ${file} (in a worker thread).`);
    entry.pending = readProductionOffThread({ file, sources, root })
      .then((value) => {
        if (configKey === this.configKey) {
          entry.value = value;
          entry.at = Date.now();
          for (const r of value.readings) if (r.error) this.log.warn(`Production (${r.label}) for ${file}: ${r.error}`);
          this.onRead();
        }
        return value;
      })
      .catch((error: unknown) => {
        this.log.warn(`Production numbers for ${file} could not be read: ${(error as Error).message}`);
        throw error;
      })
      .finally(() => {
        entry.pending = undefined;
      });
    entry.pending.catch(() => undefined);
  }
}
