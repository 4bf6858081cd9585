/**
 * A prompt's retrieval step (core/retrieval/retrievalStep.ts) sends its query to a URL the prompt file
 * names: from the editor, only after the user has seen where, once per prompt file and destination,
 * remembered in the workspace's state — a cloned repository cannot make a run post to a service the
 * user never saw, and a changed URL asks again. Runs (and so retrieval) are already refused in
 * untrusted workspaces (runController.ts). No runtime vscode import: unit-tested with an in-memory Memento.
 */
import type * as vscode from 'vscode';
import { retrievalDestination } from '../../core/retrieval/retrievalStep';
import { RememberedConsent } from './rememberedConsent';

export { retrievalDestination };

export class RetrievalConsent {
  private readonly remembered: RememberedConsent;

  constructor(state: Pick<vscode.Memento, 'get' | 'update'>) {
    this.remembered = new RememberedConsent(state, 'promptInsight.retrieval');
  }

  /** True when the run may go on: confirmed before for this file and destination, or confirmed now. A no is not remembered. */
  async check(file: string, url: string, ask: (destination: string) => Promise<boolean>): Promise<boolean> {
    const destination = retrievalDestination(url);
    return this.remembered.check(file, destination, () => ask(destination));
  }
}
