/**
 * A memo (a, b) → int for non-negative a and b, filled on demand by the function it is made with:
 * the pair table, the safe cuts and the character-level start each keep one.
 */
import { allocZeroed, i32At, setI32 } from './memory';

/** Open addressing over (a + 1, b, value) triples; starts at 1k slots and doubles (fresh memory costs start-up time). */
export class PairMemo {
  slots: usize = 0;
  mask: i32 = 0;
  size: i32 = 0;

  constructor(private compute: (a: i32, b: i32) => i32) {
    this.allocate(1024);
  }

  get(a: i32, b: i32): i32 {
    const found = this.find(a, b);
    if (found >= 0) return i32At(this.slots, found * 3 + 2);
    // Computing may fill other memos (never this one), but the slot is found again to be safe.
    const compute = this.compute;
    const value = compute(a, b);
    const at = -1 - this.find(a, b);
    setI32(this.slots, at * 3, a + 1);
    setI32(this.slots, at * 3 + 1, b);
    setI32(this.slots, at * 3 + 2, value);
    if (++this.size * 2 > this.mask) this.grow();
    return value;
  }

  /** The slot holding (a, b), or -1 - the empty slot where it belongs. */
  private find(a: i32, b: i32): i32 {
    let i = (a * <i32>0x9e3779b1 ^ b * <i32>0x85ebca6b) & this.mask;
    const key = a + 1;
    while (true) {
      const stored = i32At(this.slots, i * 3);
      if (stored == key && i32At(this.slots, i * 3 + 1) == b) return i;
      if (stored == 0) return -1 - i;
      i = (i + 1) & this.mask;
    }
  }

  private allocate(slotCount: i32): void {
    this.slots = allocZeroed(slotCount * 12);
    this.mask = slotCount - 1;
    this.size = 0;
  }

  private grow(): void {
    const old = this.slots;
    const oldCount = this.mask + 1;
    this.allocate(oldCount * 2);
    for (let j: i32 = 0; j < oldCount; j++) {
      const key = i32At(old, j * 3);
      if (key == 0) continue;
      const at = -1 - this.find(key - 1, i32At(old, j * 3 + 1));
      setI32(this.slots, at * 3, key);
      setI32(this.slots, at * 3 + 1, i32At(old, j * 3 + 1));
      setI32(this.slots, at * 3 + 2, i32At(old, j * 3 + 2));
      this.size++;
    }
  }
}
