/**
 * When to restart a crashed language server: always, unless it has crashed more than
 * `maxRestarts` times within `windowMs` (then it would only loop). No vscode import, so it is unit-tested.
 */
export class RestartPolicy {
  private readonly crashes: number[] = [];

  constructor(private readonly maxRestarts = 4, private readonly windowMs = 3 * 60 * 1000) {}

  /** Records a crash at `nowMs`; true when the server should be restarted. */
  shouldRestart(nowMs: number): boolean {
    this.crashes.push(nowMs);
    while (this.crashes.length > 0 && nowMs - this.crashes[0]! > this.windowMs) this.crashes.shift();
    return this.crashes.length <= this.maxRestarts;
  }

  get recentCrashes(): number {
    return this.crashes.length;
  }
}
