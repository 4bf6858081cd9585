/** UTF-16 units → token count, for whole pieces and for parts between cuts; cleared at 100k entries. */
import { allocBytes, allocZeroed, i32At, setI32 } from './memory';

const PIECE_CACHE_LIMIT: i32 = 100000;

export class PieceCache {
  /** Per slot: hash, arena offset + 1 (0 = empty), length, count. */
  slots: usize = 0;
  mask: i32 = 0;
  size: i32 = 0;
  arena: usize = 0;
  arenaUsed: i32 = 0;
  arenaCapacity: i32 = 0;

  constructor() {
    this.allocate(4096);
    this.arenaCapacity = 1 << 16;
    this.arena = allocBytes(this.arenaCapacity << 1);
  }

  /** The cached count of units[0, length), or -1. */
  get(units: usize, length: i32, hash: u32): i32 {
    const at = this.find(units, length, hash);
    return at >= 0 ? i32At(this.slots, at * 4 + 3) : -1;
  }

  set(units: usize, length: i32, hash: u32, count: i32): void {
    if (this.size >= PIECE_CACHE_LIMIT) this.clear();
    const found = this.find(units, length, hash);
    if (found >= 0) return;
    if (this.arenaUsed + length > this.arenaCapacity) {
      const capacity = max(this.arenaCapacity * 2, this.arenaUsed + length);
      const grown = allocBytes(capacity << 1);
      memory.copy(grown, this.arena, <usize>this.arenaUsed << 1);
      this.arena = grown;
      this.arenaCapacity = capacity;
    }
    memory.copy(this.arena + (<usize>this.arenaUsed << 1), units, <usize>length << 1);
    const at = -1 - found;
    setI32(this.slots, at * 4, <i32>hash);
    setI32(this.slots, at * 4 + 1, this.arenaUsed + 1);
    setI32(this.slots, at * 4 + 2, length);
    setI32(this.slots, at * 4 + 3, count);
    this.arenaUsed += length;
    if (++this.size * 2 > this.mask) this.grow();
  }

  clear(): void {
    memory.fill(this.slots, 0, <usize>(this.mask + 1) << 4);
    this.size = 0;
    this.arenaUsed = 0;
  }

  private find(units: usize, length: i32, hash: u32): i32 {
    let i = <i32>hash & this.mask;
    while (true) {
      const base = this.slots + (<usize>i << 4);
      const offset = load<i32>(base, 4);
      if (offset == 0) return -1 - i;
      if (load<u32>(base) == hash && load<i32>(base, 8) == length && sameUnits(this.arena + (<usize>(offset - 1) << 1), units, length)) return i;
      i = (i + 1) & this.mask;
    }
  }

  private allocate(slotCount: i32): void {
    this.slots = allocZeroed(slotCount << 4);
    this.mask = slotCount - 1;
    this.size = 0;
  }

  private grow(): void {
    const old = this.slots;
    const oldCount = this.mask + 1;
    this.allocate(oldCount * 2);
    for (let j: i32 = 0; j < oldCount; j++) {
      const base = old + (<usize>j << 4);
      if (load<i32>(base, 4) == 0) continue;
      let i = load<i32>(base) & this.mask;
      while (load<i32>(this.slots + (<usize>i << 4), 4) != 0) i = (i + 1) & this.mask;
      memory.copy(this.slots + (<usize>i << 4), base, 16);
      this.size++;
    }
  }
}

function sameUnits(a: usize, b: usize, length: i32): bool {
  for (let i: i32 = 0; i < length; i++) {
    if (load<u16>(a + (<usize>i << 1)) != load<u16>(b + (<usize>i << 1))) return false;
  }
  return true;
}

export function unitsHash(units: usize, length: i32): u32 {
  let hash: u32 = 0x811c9dc5 ^ <u32>length;
  for (let i: i32 = 0; i < length; i++) hash = (hash ^ <u32>load<u16>(units + (<usize>i << 1))) * 0x01000193;
  hash ^= hash >> 16;
  hash *= 0x85ebca6b;
  hash ^= hash >> 13;
  return hash;
}
