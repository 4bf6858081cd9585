/**
 * What `sample` keeps while it streams: the first cases in the strategy's order — at most `n`, at
 * most `budget` characters of inputs — and nothing else. Each case has a rank (lower comes first); an
 * input seen again keeps its best-ranked request. A max-heap holds the kept cases, so a case that
 * ranks after the last kept one is refused at once, and once anything was cut, nothing ranked after
 * it is taken again: what is kept is exactly the prefix of the order that fits, however the requests
 * arrive, in memory bounded by n and the budget.
 */

/** Lower first; ties broken by the second number (arrival order), so the order is total and reproducible. */
export type Rank = readonly [number, number];

export interface Kept<T> {
  key: string;
  rank: Rank;
  chars: number;
  value: T;
  at: number;
}

const before = (a: Rank, b: Rank): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

export class KeptCases<T> {
  private readonly heap: Kept<T>[] = [];
  private readonly byKey = new Map<string, Kept<T>>();
  private chars = 0;
  /** The best rank cut so far: nothing ranked at or after it is kept again. */
  private cutAt: Rank | null = null;
  /** Whether the budget (not n) made the last cut. */
  cutForSize = false;

  constructor(
    private readonly n: number,
    private budget: number,
  ) {}

  /** Whether a case of this rank could be kept (cheap: before the work of preparing it). */
  admits(rank: Rank): boolean {
    return this.cutAt === null || before(rank, this.cutAt);
  }

  offer(key: string, rank: Rank, chars: number, value: T): void {
    if (!this.admits(rank)) return;
    const known = this.byKey.get(key);
    if (known) {
      if (!before(rank, known.rank)) return;
      this.chars += chars - known.chars;
      Object.assign(known, { rank, chars, value });
      this.up(known.at);
      this.down(known.at);
    } else {
      const entry: Kept<T> = { key, rank, chars, value, at: this.heap.length };
      this.heap.push(entry);
      this.byKey.set(key, entry);
      this.chars += chars;
      this.up(entry.at);
    }
    this.fit();
  }

  /** A smaller budget (stratified: a new version takes its share); cuts what no longer fits. */
  shrinkTo(budget: number): void {
    this.budget = Math.min(this.budget, budget);
    this.fit();
  }

  /** The kept cases in order. */
  ordered(): Kept<T>[] {
    return [...this.heap].sort((a, b) => (before(a.rank, b.rank) ? -1 : 1));
  }

  private fit(): void {
    while (this.heap.length > this.n || (this.chars > this.budget && this.heap.length > 0)) {
      if (this.heap.length <= this.n) this.cutForSize = true;
      const worst = this.heap[0]!;
      this.cutAt = worst.rank;
      this.byKey.delete(worst.key);
      this.chars -= worst.chars;
      const last = this.heap.pop()!;
      if (last !== worst) {
        this.heap[0] = last;
        last.at = 0;
        this.down(0);
      }
    }
  }

  // A max-heap on rank: the worst kept case at the top.
  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(this.heap[parent]!.rank, this.heap[i]!.rank)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < this.heap.length && before(this.heap[worst]!.rank, this.heap[l]!.rank)) worst = l;
      if (r < this.heap.length && before(this.heap[worst]!.rank, this.heap[r]!.rank)) worst = r;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i]!;
    const b = this.heap[j]!;
    this.heap[i] = b;
    this.heap[j] = a;
    a.at = j;
    b.at = i;
  }
}
