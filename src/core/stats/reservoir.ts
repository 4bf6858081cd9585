/**
 * Uniform reservoir samples of a stream (Vitter's Algorithm R) and their union: production keeps at most
 * a fixed number of values per version, per hour, per window, and labels that turn out to be one revision
 * are pooled. A merged reservoir is a uniform sample of both streams together: each value drawn from a side
 * in proportion to that side's values not yet drawn (sampling without replacement), so a side that saw 2,000
 * values and another that saw 20 keep their shares — not the first side's kept values, not half each.
 */

/** Offers the `seen`-th value of a stream (counting this one) to a reservoir of at most `cap` values. */
export function reservoirKeep<T>(values: T[], cap: number, seen: number, value: T, random: () => number): void {
  if (values.length < cap) {
    values.push(value);
    return;
  }
  // The i-th value replaces a kept one with probability cap / i.
  const slot = Math.floor(random() * seen);
  if (slot < cap) values[slot] = value;
}

/**
 * The reservoir of two streams together from theirs (`a` of `seenA` values, `b` of `seenB`), at most `cap`
 * values. Each side's reservoir must be uniform and hold min(cap, seen) values, as reservoirKeep leaves it.
 */
export function mergeReservoirs<T>(a: readonly T[], seenA: number, b: readonly T[], seenB: number, cap: number, random: () => number): T[] {
  if (seenA + seenB <= cap && a.length === seenA && b.length === seenB) return [...a, ...b];
  const restA = [...a];
  const restB = [...b];
  let leftA = seenA;
  let leftB = seenB;
  const out: T[] = [];
  const draws = Math.min(cap, seenA + seenB);
  while (out.length < draws) {
    const fromA = restB.length === 0 || (restA.length > 0 && random() * (leftA + leftB) < leftA);
    const rest = fromA ? restA : restB;
    if (rest.length === 0) break;
    // A random value of that side's reservoir not yet drawn (a swap-remove keeps it O(1)).
    const i = Math.floor(random() * rest.length);
    out.push(rest[i]!);
    rest[i] = rest[rest.length - 1]!;
    rest.pop();
    if (fromA) leftA--;
    else leftB--;
  }
  return out;
}
