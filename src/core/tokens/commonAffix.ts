/**
 * Common prefix and suffix lengths of two versions of a long text, compared in chunks: string
 * equality of slices runs at memory speed, while a charCodeAt loop costs ~1 ms per 200k
 * characters, which was the largest part of re-counting after a one-character edit.
 */
const FIRST_CHUNK = 4096;

export function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let at = 0;
  let step = FIRST_CHUNK;
  while (at < limit) {
    const end = Math.min(limit, at + step);
    if (a.slice(at, end) === b.slice(at, end)) at = end;
    else if (step === 1) break;
    else step = Math.max(1, step >> 3); // narrow down on the chunk that differs
  }
  return at;
}

/** Length of the common suffix, at most `limit` characters (so that it cannot overlap the prefix). */
export function commonSuffixLength(a: string, b: string, limit: number): number {
  let length = 0;
  let step = FIRST_CHUNK;
  while (length < limit) {
    const next = Math.min(limit, length + step);
    if (a.slice(a.length - next, a.length - length) === b.slice(b.length - next, b.length - length)) length = next;
    else if (step === 1) break;
    else step = Math.max(1, step >> 3);
  }
  return length;
}
