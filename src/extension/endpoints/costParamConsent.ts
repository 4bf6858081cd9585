/**
 * Request parameters that change cost or retention (core/endpoint/costParams.ts) are sent from the
 * editor only after the user has said yes, once per prompt file and parameter set, remembered in the
 * workspace's state: a cloned repository's `n: 64` or `store: true` is shown before it is sent, and a
 * changed value (`n: 64` → `n: 128`) asks again. Like the changed-origin rule of API keys (apiKeys.ts),
 * this has no runtime vscode import and is unit-tested with an in-memory Memento.
 */
import type * as vscode from 'vscode';
import { costParamSetKey, describeCostParams, type CostParam } from '../../core/endpoint/costParams';
import { RememberedConsent } from './rememberedConsent';

export class CostParamConsent {
  private readonly remembered: RememberedConsent;

  constructor(state: Pick<vscode.Memento, 'get' | 'update'>) {
    this.remembered = new RememberedConsent(state, 'promptInsight.costParams');
  }

  /** Whether these parameters of this file may be sent without asking (none, or confirmed before). */
  isAllowed(file: string, found: readonly CostParam[]): boolean {
    return found.length === 0 || this.remembered.agreed(file).includes(costParamSetKey(found));
  }

  async allow(file: string, found: readonly CostParam[]): Promise<void> {
    await this.remembered.remember(file, costParamSetKey(found));
  }

  /**
   * True when the run may go on: nothing to ask, confirmed before, or confirmed now (`ask` gets the
   * parameters described and shows the dialog). A refusal is not remembered: the next run asks again.
   */
  async check(file: string, found: readonly CostParam[], ask: (description: string) => Promise<boolean>): Promise<boolean> {
    if (found.length === 0) return true;
    return this.remembered.check(file, costParamSetKey(found), () => ask(describeCostParams(found)));
  }
}
