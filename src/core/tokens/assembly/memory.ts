/** Regions of the module's linear memory, and int access into them. */

export function allocBytes(bytes: i32): usize {
  return heap.alloc(<usize>bytes);
}

/**
 * A region that reads as zeros. The stub runtime hands out fresh memory only (nothing here is ever
 * freed), and fresh WebAssembly memory is zero, so no fill is needed — which matters: on the
 * machines measured, touching a fresh megabyte costs ~4 ms, and most of bytePairs or bmpRecords is
 * never touched.
 */
export function allocZeroed(bytes: i32): usize {
  return heap.alloc(<usize>bytes);
}

@inline export function i32At(base: usize, index: i32): i32 {
  return load<i32>(base + (<usize>index << 2));
}

@inline export function setI32(base: usize, index: i32, value: i32): void {
  store<i32>(base + (<usize>index << 2), value);
}
