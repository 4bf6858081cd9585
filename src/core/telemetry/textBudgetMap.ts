/**
 * A FIFO map whose entries' text counts against a character budget, and whose entries are at most a number:
 * what a trace file makes the join keep per call or per trace (log-record messages, retrieved passages) is
 * bounded however the file is written. Over either bound the oldest entries go first. Entries are changed in
 * place by the caller, who says by how much they grew.
 */
export class TextBudgetMap<V> {
  private readonly map = new Map<string, V>();
  private chars = 0;

  constructor(
    /** The characters an entry holds now. */
    private readonly charsOf: (value: V) => number,
    private readonly maxChars: number,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
  ) {}

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  /** The entry at `key`, made by `create` when absent (the oldest entry goes when there are too many). */
  entry(key: string, create: () => V): V {
    let value = this.map.get(key);
    if (value === undefined) {
      if (this.map.size >= this.maxEntries) this.take(this.map.keys().next().value!);
      this.map.set(key, (value = create()));
      this.chars += this.charsOf(value);
    }
    return value;
  }

  /** An entry grew (or shrank) by `chars`: the oldest entries go while the text is over the budget. */
  grew(chars: number): void {
    this.chars += chars;
    while (this.chars > this.maxChars && this.map.size > 0) this.take(this.map.keys().next().value!);
  }

  /** Removes and returns the entry at `key`. */
  take(key: string): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.chars -= this.charsOf(value);
    return value;
  }
}
