/** Merge priority of a pair that joins into no token: higher than every real token id. */
export const NONE = 0x7fffffff;

/**
 * Open-addressing memo (a, b) → int in one interleaved Int32Array; misses are computed by `resolve`.
 * It starts small and doubles: each memo used to start at 64k slots (786 KB), and touching fresh
 * memory is a start-up cost (measured 4 ms per MB on the CI machine).
 */
export class IntPairMemo {
  private slots = new Int32Array(0);
  private mask = 0;
  private size = 0;

  constructor(private readonly resolve: (a: number, b: number) => number, initialSlots = 1 << 10) {
    this.allocate(initialSlots);
  }

  get(a: number, b: number): number {
    const slots = this.slots;
    let i = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)) & this.mask;
    for (;;) {
      const at = i * 3;
      const l = slots[at]!;
      if (l === a && slots[at + 1] === b) return slots[at + 2]!;
      if (l === -1) break;
      i = (i + 1) & this.mask;
    }
    const value = this.resolve(a, b);
    const at = i * 3;
    slots[at] = a;
    slots[at + 1] = b;
    slots[at + 2] = value;
    if (++this.size * 2 > this.mask) this.grow();
    return value;
  }

  private allocate(slotCount: number): void {
    this.slots = new Int32Array(slotCount * 3).fill(-1);
    this.mask = slotCount - 1;
    this.size = 0;
  }

  private grow(): void {
    const old = this.slots;
    this.allocate((this.mask + 1) * 2);
    for (let j = 0; j < old.length; j += 3) {
      const a = old[j]!;
      if (a === -1) continue;
      const b = old[j + 1]!;
      let i = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b)) & this.mask;
      while (this.slots[i * 3] !== -1) i = (i + 1) & this.mask;
      this.slots[i * 3] = a;
      this.slots[i * 3 + 1] = b;
      this.slots[i * 3 + 2] = old[j + 2]!;
      this.size++;
    }
  }
}
