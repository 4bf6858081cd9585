/**
 * Open-loop arrival processes: mean gap 1/rate for each; the spread tells them apart — constant has
 * none, Poisson's exponential gaps a coefficient of variation of 1, gamma's 1/√burstiness (vLLM's
 * `--burstiness` definition: shape = burstiness, scale = 1/(rate·burstiness)). Fixed seeds.
 */
import { describe, expect, it } from 'vitest';
import { interArrivalSampler } from '../../src/core/load/arrivals';
import { seededRandom } from '../../src/core/stats/random';

function gaps(sample: () => number, n: number): { mean: number; cv: number } {
  const xs = Array.from({ length: n }, sample);
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  return { mean, cv: sd / mean };
}

describe('inter-arrival gaps', () => {
  const n = 40_000;
  it('constant: every gap is 1/rate', () => {
    const g = gaps(interArrivalSampler({ kind: 'constant', burstiness: 1 }, 4, seededRandom(1)), 100);
    expect(g.mean).toBe(250);
    expect(g.cv).toBe(0);
  });
  it('poisson: exponential gaps, mean 1/rate and coefficient of variation 1', () => {
    const g = gaps(interArrivalSampler({ kind: 'poisson', burstiness: 1 }, 2, seededRandom(7)), n);
    expect(g.mean).toBeGreaterThan(490);
    expect(g.mean).toBeLessThan(510);
    expect(g.cv).toBeGreaterThan(0.97);
    expect(g.cv).toBeLessThan(1.03);
  });
  for (const [shape, seed] of [[0.25, 11], [0.5, 12], [4, 13], [16, 14]] as const) {
    it(`gamma burstiness ${shape} (seed ${seed}): mean 1/rate, coefficient of variation 1/√${shape}`, () => {
      const g = gaps(interArrivalSampler({ kind: 'gamma', burstiness: shape }, 5, seededRandom(seed)), n);
      expect(Math.abs(g.mean - 200) / 200).toBeLessThan(0.04);
      expect(Math.abs(g.cv - 1 / Math.sqrt(shape)) / (1 / Math.sqrt(shape))).toBeLessThan(0.05);
    });
  }
  it('the same seed gives the same schedule', () => {
    const a = interArrivalSampler({ kind: 'gamma', burstiness: 0.5 }, 3, seededRandom(42));
    const b = interArrivalSampler({ kind: 'gamma', burstiness: 0.5 }, 3, seededRandom(42));
    expect(Array.from({ length: 20 }, a)).toEqual(Array.from({ length: 20 }, b));
  });
});
