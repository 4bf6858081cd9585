import { describe, expect, it } from 'vitest';
import { fitLatency, estimateLatency } from '../../../src/core/metrics/latencyModel';
import { attributionHints } from '../../../src/core/metrics/attribution';
import type { RunRecord } from '../../../src/core/metrics/runRecord';
import { minSamplesFor, summarize, summarizeRuns } from '../../../src/core/metrics/summary';
import { percentile } from '../../../src/core/stats/percentile';

// Reference values: numpy.percentile(x, q) with the default (linear, Hyndman–Fan type 7).
describe('percentile', () => {
  it('matches numpy on published examples', () => {
    const oneToTen = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(oneToTen, 0.5)).toBeCloseTo(5.5, 12);
    expect(percentile(oneToTen, 0.9)).toBeCloseTo(9.1, 12);
    expect(percentile(oneToTen, 0.99)).toBeCloseTo(9.91, 12);
    expect(percentile([15, 20, 35, 40, 50], 0.4)).toBeCloseTo(29, 12); // numpy: 29.0
    expect(percentile([15, 20, 35, 40, 50], 0.9)).toBeCloseTo(46, 12);
    expect(percentile([7], 0.999)).toBe(7);
  });

  it('needs 1/(1−p) samples before it reports a tail percentile', () => {
    expect([0.5, 0.9, 0.99, 0.999].map(minSamplesFor)).toEqual([1, 10, 100, 1000]);
    const five = summarize([5, 1, 4, 2, 3]);
    expect(five).toMatchObject({ n: 5, mean: 3, min: 1, max: 5, p50: 3, p90: null, p99: null, p999: null, tooFewFor: ['p90', 'p99', 'p999'] });
    const hundred = summarize(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(hundred.p99).toBeCloseTo(99.01, 9);
    expect(hundred.p999).toBeNull();
    expect(summarize([])).toMatchObject({ n: 0, mean: null, p50: null });
  });
});

function run(partial: Partial<RunRecord>): RunRecord {
  return { ok: true, status: 200, error: null, ttftMs: 100, firstAnswerMs: 100, e2eMs: 1000, streamEndMs: 1001, outputTokens: 10, outputTokensSource: 'usage', inputTokens: 50, inputTokensSource: 'usage', tpotMs: 100, itlMs: [], finishReason: 'stop', streamed: true, retries: 0, ...partial };
}

describe('summarizeRuns', () => {
  it('summarises successful runs only and counts errors by kind', () => {
    const summary = summarizeRuns([run({ ttftMs: 100 }), run({ ttftMs: 300 }), run({ ok: false, ttftMs: 5, e2eMs: null, error: { kind: 'connection_reset', message: '' } }), run({ ok: false, ttftMs: null, e2eMs: null, error: { kind: 'rate_limited', message: '' } })]);
    expect(summary.runs).toBe(4);
    expect(summary.ok).toBe(2);
    expect(summary.ttftMs.p50).toBe(200);
    expect(summary.errors).toEqual({ connection_reset: 1, rate_limited: 1 });
    expect(summary.outputTokensPerSec.p50).toBeCloseTo(10, 9);
  });
});

describe('latency model and attribution', () => {
  it('fits TTFT against input tokens and estimates E2E from TPOT', () => {
    const runs = [100, 200, 400, 800, 1600].map((input) => run({ inputTokens: input, ttftMs: 50 + 0.5 * input, tpotMs: 20, outputTokens: 11 }));
    const fit = fitLatency(runs)!;
    expect(fit.msPerInputToken).toBeCloseTo(0.5, 9);
    expect(fit.interceptMs).toBeCloseTo(50, 9);
    expect(fit.correlation).toBeCloseTo(1, 9);
    expect(estimateLatency(fit, 1000)).toEqual({ ttftMs: 550, e2eMs: 550 + 10 * 20, basedOnRuns: 5 });
    const hints = attributionHints(summarizeRuns(runs), fit, 1).map((h) => h.kind);
    expect(hints).toContain('prefill-bound');
  });

  it('calls a long answer after a normal first token decode-bound, and 429s under concurrency capacity', () => {
    const slow = Array.from({ length: 10 }, () => run({ ttftMs: 300, e2eMs: 9000, tpotMs: 40 }));
    const kinds = attributionHints(summarizeRuns([...slow, run({ ok: false, error: { kind: 'rate_limited', message: '' } })]), fitLatency(slow), 8).map((h) => h.kind);
    expect(kinds).toEqual(['decode-bound', 'capacity']);
    expect(attributionHints(summarizeRuns([run({})]), fitLatency([run({})]), 1)).toEqual([]);
  });
});
