/**
 * Serving metrics as vLLM's `bench serve` defines them, re-implemented here from its documentation
 * (TTFT; E2EL = send → last chunk; TPOT = (E2EL − TTFT) / (output tokens − 1); ITL = every gap
 * between chunks; decode rate = 1000 / TPOT), fed the same recorded streams as our record builder;
 * and the cache and timing fields servers put in their final chunks.
 */
import { describe, expect, it } from 'vitest';
import { anthropicDecoder } from '../../../src/core/endpoint/anthropicDecoder';
import { openAiDecoder } from '../../../src/core/endpoint/openaiDecoder';
import type { TimedEvent } from '../../../src/core/endpoint/types';
import { serverEvidenceHints } from '../../../src/core/metrics/attribution';
import { buildRunRecord, decodeTokensPerSec, type RunRecord } from '../../../src/core/metrics/runRecord';
import { summarizeRuns, summarizeWarmRuns } from '../../../src/core/metrics/summary';

/** A recorded llama-server stream (the last chunks as it sent them), replayed with arrival times. */
function llamaStream(arrivals: number[], cached: number): { events: TimedEvent[]; startedAt: number } {
  const decoder = openAiDecoder('text/event-stream');
  const events: TimedEvent[] = [];
  const enc = new TextEncoder();
  arrivals.forEach((t, i) => {
    events.push(...decoder.feed(enc.encode(`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" tok${i}"}}],"object":"chat.completion.chunk"}\n\n`), t));
  });
  const end = arrivals.at(-1)!;
  events.push(...decoder.feed(enc.encode('data: {"choices":[{"finish_reason":"length","index":0,"delta":{}}],"object":"chat.completion.chunk"}\n\n'), end));
  events.push(
    ...decoder.feed(
      enc.encode(
        `data: {"choices":[],"object":"chat.completion.chunk","usage":{"completion_tokens":${arrivals.length},"prompt_tokens":106,"total_tokens":${106 + arrivals.length},"prompt_tokens_details":{"cached_tokens":${cached}}},"timings":{"cache_n":${cached},"prompt_n":${106 - cached},"prompt_ms":180.5,"predicted_n":${arrivals.length},"predicted_ms":${end - arrivals[0]! + 10}}}\n\ndata: [DONE]\n\n`,
      ),
      end + 1,
    ),
    ...decoder.end(end + 1),
  );
  return { events, startedAt: 1000 };
}

/** vLLM bench serve's definitions, from its documentation. */
function vllmMetrics(start: number, chunkTimes: number[], outputTokens: number) {
  const ttft = chunkTimes[0]! - start;
  const e2el = chunkTimes.at(-1)! - start;
  const tpot = (e2el - ttft) / (outputTokens - 1);
  const itl = chunkTimes.slice(1).map((t, i) => t - chunkTimes[i]!);
  return { ttft, e2el, tpot, itl, decodeRate: 1000 / tpot };
}

describe('serving metrics on recorded streams', () => {
  const recordings = [
    [1212, 1231, 1250, 1268, 1290, 1307, 1330, 1349],
    [1040, 1095, 1101, 1160, 1161, 1240, 1300, 1420, 1421, 1500, 1600, 1601],
    [3000, 3020],
  ];
  it.each(recordings)('TTFT, E2EL, TPOT, ITL and the decode rate equal vLLM bench serve formulas (%#)', (...arrivals) => {
    const { events, startedAt } = llamaStream(arrivals, 0);
    const { record } = buildRunRecord({ startedAt, status: 200, streamed: true, events, endedAt: arrivals.at(-1)! + 1, simulated: false }, { countTokens: () => 1, inputTokensEstimate: null, retries: 0 });
    const reference = vllmMetrics(startedAt, arrivals, arrivals.length);
    expect(record.ttftMs).toBe(reference.ttft);
    expect(record.e2eMs).toBe(reference.e2el);
    expect(record.tpotMs).toBeCloseTo(reference.tpot, 9);
    expect(record.itlMs).toEqual(reference.itl);
    expect(decodeTokensPerSec(record)).toBeCloseTo(reference.decodeRate, 9);
    expect(record.outputTokensSource).toBe('usage');
  });

  it("reads llama.cpp's cache and timings: cached tokens, cold or warm, prefill and decode phases", () => {
    const arrivals = [1212, 1231, 1250];
    const cold = buildRunRecord({ startedAt: 1000, status: 200, streamed: true, events: llamaStream(arrivals, 0).events, endedAt: 1300, simulated: false }, { countTokens: () => 1, inputTokensEstimate: null, retries: 0 }).record;
    const warm = buildRunRecord({ startedAt: 1000, status: 200, streamed: true, events: llamaStream(arrivals, 105).events, endedAt: 1300, simulated: false }, { countTokens: () => 1, inputTokensEstimate: null, retries: 0 }).record;
    expect([cold.cache, cold.cachedInputTokens, warm.cache, warm.cachedInputTokens]).toEqual(['cold', 0, 'warm', 105]);
    // A few tokens of a shared chat-template start (4 of 106) do not make a run warm.
    const shared = buildRunRecord({ startedAt: 1000, status: 200, streamed: true, events: llamaStream(arrivals, 4).events, endedAt: 1300, simulated: false }, { countTokens: () => 1, inputTokensEstimate: null, retries: 0 }).record;
    expect([shared.cache, shared.cachedInputTokens]).toEqual(['cold', 4]);
    expect(cold.phases).toEqual({ queueMs: 212 - 180.5, prefillMs: 180.5, decodeMs: 48, source: 'llama.cpp timings' });
    const summary = summarizeRuns([cold, warm, { ...cold, cache: 'unknown' }]);
    expect(summary.cache).toEqual({ cold: 1, warm: 1, unknown: 1 });
    expect(summary.ttftMs.n).toBe(2); // cold and unknown; the warm run is summarised apart
    expect(summarizeWarmRuns([cold, warm])!.ttftMs.n).toBe(1);
    expect(summarizeWarmRuns([cold])).toBeNull();
  });

  it("reads Anthropic's cache reads and writes into the input and cached counts", () => {
    const decoder = anthropicDecoder('text/event-stream');
    const enc = new TextEncoder();
    const events = [
      ...decoder.feed(enc.encode('event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":20,"cache_read_input_tokens":1800,"cache_creation_input_tokens":100,"output_tokens":1}}}\n\n'), 10),
      ...decoder.feed(enc.encode('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n'), 20),
      ...decoder.feed(enc.encode('event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n'), 30),
      ...decoder.end(31),
    ];
    const usage = events.filter((e) => e.kind === 'usage').at(-1) as Extract<TimedEvent, { kind: 'usage' }>;
    expect(usage).toMatchObject({ inputTokens: 1920, outputTokens: 3, cachedInputTokens: 1800 });
  });
});

describe('hints from the server\'s own numbers', () => {
  const base = buildRunRecord({ startedAt: 1000, status: 200, streamed: true, events: llamaStream([1212, 1231, 1250], 0).events, endedAt: 1300, simulated: false }, { countTokens: () => 1, inputTokensEstimate: null, retries: 0 }).record;
  const withPhases = (ttftMs: number, queueMs: number, prefillMs: number): RunRecord => ({ ...base, ttftMs, phases: { queueMs, prefillMs, decodeMs: 100, source: 'llama.cpp timings' } });

  it('queue-bound when most of TTFT was waiting for the server, citing its numbers', () => {
    const records = [withPhases(2400, 2200, 200), withPhases(2500, 2300, 200), withPhases(300, 100, 200)];
    const hints = serverEvidenceHints(summarizeRuns(records), { records, samples: [{ t: 0, requestsWaiting: 3, raw: {} }] });
    expect(hints.map((h) => h.kind)).toEqual(['queue-bound']);
    expect(hints[0]!.message).toContain('2.20 s was waiting');
    expect(hints[0]!.message).toContain('up to 3 requests waiting');
  });

  it('prefill-bound, cache pressure and cold against warm from the same evidence', () => {
    const records = [withPhases(900, 50, 850), withPhases(950, 60, 890)];
    const warm = summarizeRuns([{ ...withPhases(40, 30, 10), cache: 'cold' }]);
    const hints = serverEvidenceHints(summarizeRuns(records), { records, samples: [{ t: 0, kvCacheUsage: 0.5, preemptions: 2, raw: {} }, { t: 500, kvCacheUsage: 0.95, preemptions: 4, raw: {} }], summaryWarm: { ...warm, cache: { cold: 0, warm: 1, unknown: 0 } } });
    expect(hints.map((h) => h.kind)).toEqual(['prefill-bound', 'cache-pressure', 'cold-vs-warm']);
    expect(hints[1]!.message).toContain('95%');
    expect(hints[1]!.message).toContain('2 requests were preempted');
  });

  it('no phases, no metrics: no hint is made up', () => {
    expect(serverEvidenceHints(summarizeRuns([base]), { records: [{ ...base, phases: null }] })).toEqual([]);
  });
});
