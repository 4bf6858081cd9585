/**
 * What the user agreed to for one prompt file, remembered in the workspace's state: a bounded list of
 * texts per file (the newest kept), under a key of its own per kind of consent. A refusal is never
 * remembered — the next run asks again. No runtime vscode import: unit-tested with an in-memory Memento.
 */
import type * as vscode from 'vscode';

/** Remembered consents per file and kind; more than this and the oldest goes. */
const MAX_REMEMBERED = 20;

export class RememberedConsent {
  constructor(
    private readonly state: Pick<vscode.Memento, 'get' | 'update'>,
    /** The workspaceState key prefix of this kind of consent (`promptInsight.costParams`, `promptInsight.retrieval`). */
    private readonly kind: string,
  ) {}

  private key(file: string): string {
    return `${this.kind}/${file}`;
  }

  /** The texts agreed to for this file (anything else stored under the key is ignored). */
  agreed(file: string): string[] {
    const stored = this.state.get<unknown>(this.key(file));
    return Array.isArray(stored) ? stored.filter((s): s is string => typeof s === 'string') : [];
  }

  async remember(file: string, text: string): Promise<void> {
    await this.state.update(this.key(file), [...this.agreed(file).filter((s) => s !== text), text].slice(-MAX_REMEMBERED));
  }

  /** True when `text` was agreed to before, or is agreed to now (`ask` shows the dialog). */
  async check(file: string, text: string, ask: () => Promise<boolean>): Promise<boolean> {
    if (this.agreed(file).includes(text)) return true;
    if (!(await ask())) return false;
    await this.remember(file, text);
    return true;
  }
}
