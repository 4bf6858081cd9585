/**
 * Reservoirs and their union (stats/reservoir.ts): a merged reservoir is a uniform sample of both streams,
 * each side in proportion to what it saw — checked by the share of each side over many seeded merges.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/core/stats/random';
import { mergeReservoirs, reservoirKeep } from '../../../src/core/stats/reservoir';

/** A uniform reservoir of `n` values labelled `label`. */
function stream(label: string, n: number, cap: number, random: () => number): string[] {
  const kept: string[] = [];
  for (let i = 1; i <= n; i++) reservoirKeep(kept, cap, i, `${label}${i}`, random);
  return kept;
}

describe('reservoirs', () => {
  it('all values kept while they fit; the union of two that fit is both, in order', () => {
    const r = seededRandom(3);
    expect(mergeReservoirs(stream('a', 3, 10, r), 3, stream('b', 4, 10, r), 4, 10, r)).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'b4']);
  });

  it('each side in proportion to what it saw (2,000 and 20 → about 0.5 of 50 from the small side), never more than the cap, no value twice', () => {
    const r = seededRandom(7);
    let fromSmall = 0;
    const trials = 2_000;
    for (let t = 0; t < trials; t++) {
      const merged = mergeReservoirs(stream('a', 2_000, 50, r), 2_000, stream('b', 20, 50, r), 20, 50, r);
      expect(merged).toHaveLength(50);
      expect(new Set(merged).size).toBe(50);
      fromSmall += merged.filter((v) => v.startsWith('b')).length;
    }
    // Expected 50 · 20/2020 ≈ 0.495 a merge (concatenating the reservoirs would give 20).
    expect(fromSmall / trials).toBeGreaterThan(0.45);
    expect(fromSmall / trials).toBeLessThan(0.54);
  });

  it('two large streams of 2,000: about 25 of 50 from each (offering one side\'s 50 kept values to the other\'s reservoir would keep about 1)', () => {
    const r = seededRandom(5);
    let fromB = 0;
    const trials = 500;
    for (let t = 0; t < trials; t++) fromB += mergeReservoirs(stream('a', 2_000, 50, r), 2_000, stream('b', 2_000, 50, r), 2_000, 50, r).filter((v) => v.startsWith('b')).length;
    expect(fromB / trials).toBeGreaterThan(24);
    expect(fromB / trials).toBeLessThan(26);
  });

  it('equal streams share the reservoir equally; every value of the union is as likely to be kept', () => {
    const r = seededRandom(11);
    const counts = new Map<string, number>();
    const trials = 4_000;
    let fromB = 0;
    for (let t = 0; t < trials; t++) {
      const merged = mergeReservoirs(stream('a', 100, 20, r), 100, stream('b', 100, 20, r), 100, 20, r);
      fromB += merged.filter((v) => v.startsWith('b')).length;
      for (const v of merged) counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    expect(fromB / trials).toBeGreaterThan(9.6);
    expect(fromB / trials).toBeLessThan(10.4);
    // Each of the 200 values: kept with probability 20/200, so about 400 times in 4,000 merges.
    for (const label of ['a1', 'a100', 'b1', 'b100']) {
      expect(counts.get(label)!).toBeGreaterThan(320);
      expect(counts.get(label)!).toBeLessThan(480);
    }
  });
});

describe('answers of two labels of one revision', () => {
  it('pooled: every answer counted, each label in proportion to its answers', async () => {
    const { AnswerSample } = await import('../../../src/core/telemetry/prodAdherence');
    const sample = new AnswerSample(50);
    const span = (version: string, answer: string) => ({ promptName: 'p', promptVersion: version, answer, errorType: null, endMs: 1, startMs: 0 }) as unknown as Parameters<InstanceType<typeof AnswerSample>['span']>[0];
    for (let i = 0; i < 2_000; i++) sample.span(span('abc1234', `short ${i}`));
    for (let i = 0; i < 2_000; i++) sample.span(span('abc1234def', `full ${i}`));
    sample.relabel((name, version) => ({ name, version: version.slice(0, 7) }));
    const { seen, answers } = sample.answersOf('p', 'abc1234');
    expect(seen).toBe(4_000);
    expect(answers).toHaveLength(50);
    const full = answers.filter((a) => a.answer.startsWith('full')).length;
    expect(full).toBeGreaterThan(12);
    expect(full).toBeLessThan(38);
  });
});
