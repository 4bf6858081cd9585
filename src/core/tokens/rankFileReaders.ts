/** Where a rank file comes from: the file beside the bundles, or bytes encoded in memory (from source). */
import { closeSync, fstatSync, openSync, read, readSync } from 'node:fs';

/** Gives a place of `size` bytes in the merge's own memory. */
export type Allocate = (size: number) => Uint8Array;

/**
 * A rank file read into the place `allocate` gives for its size — the merge's own memory, so the
 * 1.6 MB of o200k_base are read once and never copied. `read` does the reading on libuv's thread
 * pool, so a process that starts loading early (the language server) overlaps it with its own
 * start-up; `readSync` is for rebuilding a merge in the middle of a count.
 */
export interface RankFileSource {
  read(allocate: Allocate): Promise<Uint8Array>;
  readSync(allocate: Allocate): Uint8Array;
}

/** Opens the file and takes the place for it; the descriptor is closed if that fails. */
function openInto(path: string, allocate: Allocate): { fd: number; target: Uint8Array } {
  const fd = openSync(path, 'r');
  try {
    return { fd, target: allocate(fstatSync(fd).size) };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

export function rankFileOnDisk(path: string): RankFileSource {
  const shrank = (): Error => new Error(`${path} shrank while it was read`);
  return {
    readSync: (allocate) => {
      const { fd, target } = openInto(path, allocate);
      try {
        for (let at = 0; at < target.length; ) {
          const bytes = readSync(fd, target, at, target.length - at, at);
          if (bytes === 0) throw shrank();
          at += bytes;
        }
        return target;
      } finally {
        closeSync(fd);
      }
    },
    // Opened and sized at once, so that the read itself is the one thing left to the thread pool.
    read: (allocate) => {
      const { fd, target } = openInto(path, allocate);
      return new Promise<Uint8Array>((resolve, reject) => {
        const readFrom = (at: number): void => {
          if (at === target.length) return resolve(target);
          read(fd, target, at, target.length - at, at, (error, bytes) => {
            if (error) reject(error);
            else if (bytes === 0) reject(shrank());
            else readFrom(at + bytes);
          });
        };
        readFrom(0);
      }).finally(() => closeSync(fd));
    },
  };
}

export function rankFileInMemory(bytes: Uint8Array): RankFileSource {
  const copy = (allocate: Allocate): Uint8Array => {
    const target = allocate(bytes.length);
    target.set(bytes);
    return target;
  };
  return { readSync: copy, read: async (allocate) => copy(allocate) };
}
