/**
 * A prompt's retrieval step (core/retrieval/retrievalStep.ts) sends its query to a URL the prompt file
 * names: from the editor, only after the user has seen where, once per prompt file and destination,
 * remembered in the workspace's state — a cloned repository cannot make a run post to a service the
 * user never saw, and a changed URL asks again. Runs (and so retrieval) are already refused in
 * untrusted workspaces (runController.ts). No runtime vscode import: unit-tested with an in-memory Memento.
 */
import type * as vscode from 'vscode';
import { retrievalDestination } from '../../core/retrieval/retrievalStep';

export { retrievalDestination };

type StateKey = `promptInsight.retrieval/${string}`;
const MAX_REMEMBERED = 20;

export class RetrievalConsent {
  constructor(private readonly state: Pick<vscode.Memento, 'get' | 'update'>) {}

  private key(file: string): StateKey {
    return `promptInsight.retrieval/${file}`;
  }

  private allowed(file: string): string[] {
    const stored = this.state.get<unknown>(this.key(file));
    return Array.isArray(stored) ? stored.filter((s): s is string => typeof s === 'string') : [];
  }

  /** True when the run may go on: confirmed before for this file and destination, or confirmed now. A no is not remembered. */
  async check(file: string, url: string, ask: (destination: string) => Promise<boolean>): Promise<boolean> {
    const destination = retrievalDestination(url);
    if (this.allowed(file).includes(destination)) return true;
    if (!(await ask(destination))) return false;
    await this.state.update(this.key(file), [...this.allowed(file).filter((d) => d !== destination), destination].slice(-MAX_REMEMBERED));
    return true;
  }
}
