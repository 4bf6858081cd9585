/** The results store as the server sees it: re-read only when the file changed (size or mtime). */
import { statSync } from 'node:fs';
import { ResultsStore, type StoredRun } from '../core/store/resultsStore';
import { storeNotice } from '../core/store/sealedLines';

export class RunHistory {
  private store: ResultsStore | undefined;
  private records: StoredRun[] = [];
  private stamp = '';

  constructor(private readonly onError: (message: string) => void) {}

  /** The run store's path, once the client has said it. */
  get path(): string | undefined {
    return this.store?.path;
  }

  setPath(path: string | undefined): void {
    if (path === this.store?.path) return;
    this.store = path ? new ResultsStore(path) : undefined;
    this.stamp = '';
    this.records = [];
  }

  all(): readonly StoredRun[] {
    if (!this.store) return [];
    let stamp = 'missing';
    try {
      const stat = statSync(this.store.path);
      stamp = `${stat.size}:${stat.mtimeMs}`;
    } catch {
      // no runs yet
    }
    if (stamp !== this.stamp) {
      this.stamp = stamp;
      try {
        const contents = this.store.read();
        this.records = contents.records;
        const notice = storeNotice(this.store.path, contents);
        if (notice) this.onError(notice);
      } catch (error) {
        this.records = [];
        this.onError(`Could not read the results store ${this.store.path}: ${(error as Error).message}`);
      }
    }
    return this.records;
  }
}
