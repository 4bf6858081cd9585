/** Diagnostics published a moment after the last edit of a document (debounced), at once when it opens. */

const DIAGNOSTICS_DELAY_MS = 150;

export class DiagnosticsSchedule {
  private readonly pending = new Map<string, NodeJS.Timeout>();

  constructor(private readonly publish: (uri: string) => void) {}

  /** (Re)starts the document's timer: only the last edit within `delayMs` publishes. */
  schedule(uri: string, delayMs = DIAGNOSTICS_DELAY_MS): void {
    clearTimeout(this.pending.get(uri));
    this.pending.set(
      uri,
      setTimeout(() => {
        this.pending.delete(uri);
        this.publish(uri);
      }, delayMs),
    );
  }

  cancel(uri: string): void {
    clearTimeout(this.pending.get(uri));
    this.pending.delete(uri);
  }
}
