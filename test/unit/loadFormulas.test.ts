/**
 * The load figures match the field's published definitions on a recorded request set. The formulas
 * are re-implemented here from the sources, not imported:
 *
 * - vLLM `vllm bench serve` (vllm-project/vllm, vllm/benchmarks/serve.py `calculate_metrics`, the
 *   former benchmarks/benchmark_serving.py): TTFT = first content chunk − send; E2EL = last chunk −
 *   send; TPOT = (E2EL − TTFT) / (output_len − 1), only for output_len > 1 ("if output_len <= 1, we
 *   regard tpot as 0 for goodput"); ITL = the gaps between successive chunks (a chunk may carry several
 *   tokens); request throughput = completed / duration; output throughput = Σ output_len of completed /
 *   duration; goodput = completed requests meeting every SLO (ttft, tpot, e2el; `slo >= value`) /
 *   duration (DistServe's definition); failed requests are neither completed nor good. The duration is
 *   the benchmark's wall time: first send to last completion.
 * - GuideLLM (vllm-project/guidellm, docs/guides/metrics.md): "Inter-Token Latency: the average time
 *   between generating consecutive tokens in the output, excluding the first token" — per request,
 *   that is vLLM's TPOT; its "Time Per Output Token … including the first token" is E2E / tokens, a
 *   different figure (ours follows vLLM's name and formula).
 * - SLO attainment: the share of all requests sent that met every SLO, a failed one counting as not
 *   met (our definition; vLLM's goodput share over the sent requests).
 *
 * Then the same set goes through our own code — buildRunRecord (the per-request figures), attainment
 * and requestAttains (SLO), steadyWindow (throughput, goodput) — and must agree. With too few
 * requests for a steady rate, our window is vLLM's duration and every figure is equal; with a steady
 * window (from the C-th completion to the last send), the documented rule is asserted exactly.
 *
 * Meaningful (checked by mutating runRecord.ts): if TPOT were E2E / tokens (GuideLLM's TPOT), the TPOT
 * equality fails on the first request (46 ms vs 27.5 ms), the per-request SLO verdicts no longer equal
 * vLLM's, and goodput drops from 7 to 1 request per 0.98 s (only the one-token answer still meets the
 * 30 ms TPOT limit): 'per-request…', 'SLO per request…' and both throughput/goodput tests fail.
 */
import { describe, expect, it } from 'vitest';
import { buildRunRecord, type RunRecord } from '../../src/core/metrics/runRecord';
import type { ExchangeResult } from '../../src/core/endpoint/httpExchange';
import { EndpointError, type TimedEvent } from '../../src/core/endpoint/types';
import { attainment, latencyObjectives, requestAttains } from '../../src/core/load/attainment';
import { steadyWindow } from '../../src/core/load/steadyWindow';
import type { Objective } from '../../src/core/rollout/slo';

/** One recorded request: send time, the times chunks arrived (ms on the benchmark's clock), usage's output tokens. */
interface Recorded {
  start: number;
  arrivals: number[];
  outputTokens: number;
  failedAt?: number;
}

const RECORDED: Recorded[] = [
  { start: 0, arrivals: [120, 145, 170, 200, 230], outputTokens: 5 },
  { start: 10, arrivals: [150, 180, 215, 250], outputTokens: 4 }, // TPOT 33.3 > 30
  { start: 20, arrivals: [260, 280, 300, 320, 340, 360], outputTokens: 6 }, // TTFT 240 > 200
  { start: 40, arrivals: [190], outputTokens: 1 }, // one token: no TPOT
  { start: 60, arrivals: [], outputTokens: 0, failedAt: 90 }, // a 503
  { start: 100, arrivals: [250, 290, 310], outputTokens: 5 }, // the second chunk carries 3 tokens: TPOT 15, ITL 40 and 20
  { start: 150, arrivals: [300, 320, 340, 360, 380, 400, 420, 440, 460, 480, 500], outputTokens: 11 },
  { start: 200, arrivals: [350, 380, 410, 440], outputTokens: 4 }, // TPOT exactly 30: meets (≤)
  { start: 260, arrivals: [400, 700, 720], outputTokens: 3 }, // a stall: TPOT 160
  { start: 300, arrivals: [480, 500, 520, 540, 560], outputTokens: 5 },
  { start: 350, arrivals: Array.from({ length: 17 }, (_, i) => 500 + 30 * i), outputTokens: 17 }, // E2E 630 > 600
  { start: 400, arrivals: [560, 590, 620], outputTokens: 3 },
];

const SLO = { ttftMs: 200, tpotMs: 30, e2eMs: 600 };
const OBJECTIVES: Objective[] = [
  { metric: 'ttftMs', percentile: 'p90', maxMs: SLO.ttftMs },
  { metric: 'tpotMs', percentile: 'p90', maxMs: SLO.tpotMs },
  { metric: 'e2eMs', percentile: 'p90', maxMs: SLO.e2eMs },
];

// ---- The published definitions, re-implemented (ms) ----
const ok = (r: Recorded) => r.failedAt === undefined;
const ttft = (r: Recorded) => r.arrivals[0]! - r.start;
const e2el = (r: Recorded) => r.arrivals[r.arrivals.length - 1]! - r.start;
const vllmTpot = (r: Recorded): number | null => (r.outputTokens > 1 ? (e2el(r) - ttft(r)) / (r.outputTokens - 1) : null);
const vllmItl = (r: Recorded) => r.arrivals.slice(1).map((t, i) => t - r.arrivals[i]!);
const guidellmItl = (r: Recorded) => (e2el(r) - ttft(r)) / (r.outputTokens - 1);
const guidellmTpot = (r: Recorded) => e2el(r) / r.outputTokens;
/** vLLM's goodput test: every SLO value ≥ the request's value, TPOT taken as 0 for a one-token answer. */
const vllmGood = (r: Recorded) => ok(r) && SLO.ttftMs >= ttft(r) && SLO.tpotMs >= (vllmTpot(r) ?? 0) && SLO.e2eMs >= e2el(r);
const completed = RECORDED.filter(ok);
const durationS = (Math.max(...RECORDED.map((r) => (ok(r) ? e2el(r) : r.failedAt!) + (ok(r) ? r.start : 0))) - Math.min(...RECORDED.map((r) => r.start))) / 1000;

// ---- The same set through our code ----
function exchangeOf(r: Recorded): ExchangeResult {
  const events: TimedEvent[] = ok(r)
    ? [...r.arrivals.map((t): TimedEvent => ({ kind: 'token', t, text: 'x ' })), { kind: 'usage', t: r.arrivals.at(-1)!, inputTokens: 20, outputTokens: r.outputTokens }, { kind: 'done', t: r.arrivals.at(-1)!, finishReason: 'stop' }]
    : [{ kind: 'error', t: r.failedAt!, error: new EndpointError('http_5xx', 'Service Unavailable', 503) }];
  return { startedAt: r.start, status: ok(r) ? 200 : 503, streamed: true, events, endedAt: ok(r) ? r.arrivals.at(-1)! + 1 : r.failedAt!, simulated: false };
}
const records: RunRecord[] = RECORDED.map((r) => buildRunRecord(exchangeOf(r), { countTokens: () => 0, inputTokensEstimate: null, retries: 0 }).record);
const runs = RECORDED.map((r, i) => ({ record: records[i]!, start: r.start }));
const limits = latencyObjectives(OBJECTIVES);

describe('load formulas = vLLM bench serve / GuideLLM definitions, on a recorded request set', () => {
  it('the fixture has what the definitions turn on: a failure, a one-token answer, a multi-token chunk', () => {
    expect(RECORDED).toHaveLength(12);
    expect(records.filter((r) => !r.ok).map((r) => r.error?.kind)).toEqual(['http_5xx']);
    expect(records[3]!.outputTokens).toBe(1);
    expect(RECORDED[5]!.outputTokens).toBeGreaterThan(RECORDED[5]!.arrivals.length);
  });

  it('per-request TTFT, E2E, TPOT and ITL', () => {
    RECORDED.forEach((r, i) => {
      const rec = records[i]!;
      if (!ok(r)) {
        expect([rec.ok, rec.ttftMs, rec.e2eMs, rec.tpotMs, rec.itlMs]).toEqual([false, null, null, null, []]);
        return;
      }
      expect(rec.ttftMs).toBe(ttft(r));
      expect(rec.e2eMs).toBe(e2el(r));
      expect(rec.itlMs).toEqual(vllmItl(r));
      // vLLM leaves one-token outputs out of TPOT; so do we (null, not 0, so the percentiles skip it).
      expect(rec.tpotMs).toBe(vllmTpot(r));
      if (r.outputTokens > 1) expect(rec.tpotMs).toBeCloseTo(guidellmItl(r), 12);
    });
    // The figure that tells TPOT from E2E/tokens and from mean ITL: 3 chunks carrying 5 tokens.
    expect(records[5]!.tpotMs).toBe(15);
    expect(guidellmTpot(RECORDED[5]!)).toBe(42);
    expect(records[5]!.itlMs).toEqual([40, 20]);
  });

  it('SLO per request and attainment: every SLO met, failed requests never count, one-token TPOT as vLLM', () => {
    const mine = records.map((r) => requestAttains(r, limits));
    expect(mine).toEqual(RECORDED.map(vllmGood));
    expect(mine.filter(Boolean)).toHaveLength(7);
    expect(mine[3]).toBe(true); // one token: TPOT 0 for goodput in vLLM
    expect(mine[4]).toBe(false); // failed
    const a = attainment(records, OBJECTIVES, 0.5);
    expect([a.met, a.total, a.share]).toEqual([RECORDED.filter(vllmGood).length, RECORDED.length, 7 / 12]);
    // Adherence and hallucination are rates over runs, not per-request limits: they do not fail every request.
    expect(attainment(records, [...OBJECTIVES, { metric: 'adherence', min: 0.9 }, { metric: 'hallucination', max: 0.1 }], 0.5).met).toBe(7);
  });

  it("throughput and goodput over the whole set equal vLLM's (too few requests for a steady rate: the whole run, vLLM's duration)", () => {
    expect(durationS).toBe(0.98);
    const w = steadyWindow(runs, 5, limits);
    expect([w.steady, w.windowStart, w.windowEnd]).toEqual([false, 0, 980]);
    expect(w.how).toMatch(/^too few requests for a steady rate \(\d+ completed between the ramp and the drain; 10 needed, so give --requests 20 or more\)/);
    expect(w.requestsPerSec).toBeCloseTo(completed.length / durationS, 9);
    expect(w.outputTokensPerSec).toBeCloseTo(completed.reduce((s, r) => s + r.outputTokens, 0) / durationS, 9);
    expect(w.goodput.requestsPerSec).toBeCloseTo(RECORDED.filter(vllmGood).length / durationS, 9);
    // Goodput in output tokens/s (DistServe's per-token view; vLLM reports requests only): good requests' tokens / duration.
    expect(w.goodput.outputTokensPerSec).toBeCloseTo(RECORDED.filter(vllmGood).reduce((s, r) => s + r.outputTokens, 0) / durationS, 9);
    expect(w.goodput.requestsPerSec! * durationS).toBeCloseTo(7, 9);
  });

  it('the steady window is a time window: completions after the 3rd completion (ramp over at 3 in flight) up to the last send', () => {
    const w = steadyWindow(runs, 3, limits, 2);
    // Re-implemented from the documented rule: the 3rd completion ends the ramp, the last send starts the drain.
    const ends = RECORDED.filter(ok).map((r) => r.start + e2el(r)).sort((a, b) => a - b);
    const [from, to] = [ends[2]!, Math.max(...RECORDED.map((r) => r.start))];
    expect([from, to]).toEqual([250, 400]);
    const inside = RECORDED.filter((r) => ok(r) && r.start + e2el(r) > from && r.start + e2el(r) <= to);
    expect(inside.map((r) => RECORDED.indexOf(r) + 1)).toEqual([3, 6]);
    expect([w.steady, w.counted.length, w.windowStart, w.windowEnd]).toEqual([true, 2, 250, 400]);
    expect(w.requestsPerSec).toBeCloseTo(2 / 0.15, 9);
    expect(w.goodput.requestsPerSec).toBeCloseTo(inside.filter(vllmGood).length / 0.15, 9);
    // Below the stated minimum the same set has no steady rate.
    expect(steadyWindow(runs, 3, limits).steady).toBe(false);
  });
});
