/** Where a rank file comes from: the file beside the bundles, or bytes encoded in memory (from source). */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * Reads a rank file into the place `allocate` gives for its size — the merge's own memory, so the
 * 1.6 MB of o200k_base are read once and never copied — and returns that place.
 */
export type RankFileReader = (allocate: (size: number) => Uint8Array) => Uint8Array;

export function rankFileOnDisk(path: string): RankFileReader {
  return (allocate) => {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const target = allocate(size);
      for (let at = 0; at < size; ) {
        const read = readSync(fd, target, at, size - at, at);
        if (read === 0) throw new Error(`${path} shrank while it was read`);
        at += read;
      }
      return target;
    } finally {
      closeSync(fd);
    }
  };
}

export function rankFileInMemory(bytes: Uint8Array): RankFileReader {
  return (allocate) => {
    const target = allocate(bytes.length);
    target.set(bytes);
    return target;
  };
}
