/**
 * Request parameters that change cost or retention (core/endpoint/costParams.ts) are sent from the
 * editor only after the user has said yes, once per prompt file and parameter set, remembered in the
 * workspace's state: a cloned repository's `n: 64` or `store: true` is shown before it is sent, and a
 * changed value (`n: 64` → `n: 128`) asks again. Like the changed-origin rule of API keys (apiKeys.ts),
 * this has no runtime vscode import and is unit-tested with an in-memory Memento.
 */
import type * as vscode from 'vscode';
import { costParamSetKey, describeCostParams, type CostParam } from '../../core/endpoint/costParams';

/** workspaceState keys: one per prompt file. */
type StateKey = `promptInsight.costParams/${string}`;

/** The sets a file's prompts may send, as costParamSetKey texts; a bounded list (the newest kept). */
const MAX_REMEMBERED_SETS = 20;

export class CostParamConsent {
  constructor(private readonly state: Pick<vscode.Memento, 'get' | 'update'>) {}

  private key(file: string): StateKey {
    return `promptInsight.costParams/${file}`;
  }

  private allowedSets(file: string): string[] {
    const stored = this.state.get<unknown>(this.key(file));
    return Array.isArray(stored) ? stored.filter((s): s is string => typeof s === 'string') : [];
  }

  /** Whether these parameters of this file may be sent without asking (none, or confirmed before). */
  isAllowed(file: string, found: readonly CostParam[]): boolean {
    return found.length === 0 || this.allowedSets(file).includes(costParamSetKey(found));
  }

  async allow(file: string, found: readonly CostParam[]): Promise<void> {
    const set = costParamSetKey(found);
    await this.state.update(this.key(file), [...this.allowedSets(file).filter((s) => s !== set), set].slice(-MAX_REMEMBERED_SETS));
  }

  /**
   * True when the run may go on: nothing to ask, confirmed before, or confirmed now (`ask` gets the
   * parameters described and shows the dialog). A refusal is not remembered: the next run asks again.
   */
  async check(file: string, found: readonly CostParam[], ask: (description: string) => Promise<boolean>): Promise<boolean> {
    if (this.isAllowed(file, found)) return true;
    if (!(await ask(describeCostParams(found)))) return false;
    await this.allow(file, found);
    return true;
  }
}
