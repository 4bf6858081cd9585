import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectSpans } from '../../src/core/telemetry/importOtlpSpans';
import { ProdAggregator } from '../../src/core/telemetry/prodAggregate';
import { seeded } from '../fixtures/propertySeed';
import { importOtlpFiles } from '../../src/core/telemetry/importOtlp';
import { readLines } from '../../src/core/telemetry/importLines';
import { validId } from '../../src/core/telemetry/importOtlpSpans';
import { percentilesOf } from '../../src/core/telemetry/prodReport';
import { otlpSpan, tracesLine, type SpanSpec } from '../fixtures/otlpTraces';

const dir = mkdtempSync(join(tmpdir(), 'pi-otlp-'));
let fileNo = 0;
function traceFile(lines: string[], options: { gzip?: boolean } = {}): string {
  const path = join(dir, `traces-${fileNo++}.jsonl`); // no .gz even when compressed: the magic bytes decide
  const text = `${lines.join('\n')}\n`;
  writeFileSync(path, options.gzip ? gzipSync(text) : text);
  return path;
}

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

/** 20 successes (E2E 100, 110 … 290 ms; TTFT 50 ms; 11 output tokens) and 2 timeouts, version v1. */
function knownSpans(ids: 'hex' | 'base64'): Record<string, unknown>[] {
  const spans: Record<string, unknown>[] = [];
  for (let i = 0; i < 20; i++) spans.push(otlpSpan({ promptName: 'greet', version: 'v1', startMs: T0 + i * 1000, e2eMs: 100 + 10 * i, ttftMs: 50, inputTokens: 100, outputTokens: 11, cacheRead: 25, ids }));
  for (let i = 0; i < 2; i++) spans.push(otlpSpan({ promptName: 'greet', version: 'v1', startMs: T0 + 30_000 + i, e2eMs: 5000, errorType: 'timeout', ids }));
  return spans;
}

async function only(paths: string[], options = {}) {
  const { aggregate, totals } = await importOtlpFiles(paths, options);
  return { aggregate, totals, v: [...aggregate.versions.values()] };
}

describe('OTLP JSON Lines import', () => {
  it('reads requests, errors by type, TTFT/E2E/TPOT, tokens and cache-read share with known values', async () => {
    const path = traceFile([tracesLine(knownSpans('hex').slice(0, 11)), tracesLine(knownSpans('hex').slice(11))]);
    const { v, aggregate } = await only([path]);
    expect(v).toHaveLength(1);
    const agg = v[0]!;
    expect(agg.promptName).toBe('greet');
    expect(agg.version).toBe('v1');
    expect(agg.requests).toBe(22);
    expect(agg.errors).toBe(2);
    expect([...agg.errorsByType]).toEqual([['timeout', 2]]);
    const e2e = percentilesOf(agg.e2eMs);
    expect(e2e.n).toBe(20); // failed calls carry no latency
    expect(e2e.p50!.value).toBeCloseTo(195, 3); // type-7 median of 100…290
    expect(e2e.p90!.value).toBeCloseTo(271, 3);
    expect(e2e.p50!.ci95[0]).toBeLessThanOrEqual(195);
    expect(e2e.p50!.ci95[1]).toBeGreaterThanOrEqual(195);
    expect(e2e.p99).toBeNull(); // 20 values cannot give a p99
    expect(percentilesOf(agg.ttftMs).p50!.value).toBeCloseTo(50, 3);
    // TPOT = (E2E − TTFT) / (output − 1) = (195 − 50) / 10 at the median
    expect(percentilesOf(agg.tpotMs).p50!.value).toBeCloseTo(14.5, 3);
    expect(agg.inputTokens).toBe(2000);
    expect(agg.outputTokens).toBe(220);
    expect(agg.cacheReadOfReported / agg.inputOfCacheReported).toBeCloseTo(0.25, 6);
    expect(aggregate.skipped).toEqual({ lines: 0, spans: 0, reasons: {} });
  });

  it('accepts base64 ids as some exporters write them, and gzip recognised by its magic bytes', async () => {
    const plain = await only([traceFile([tracesLine(knownSpans('hex'))])]);
    const b64gz = await only([traceFile([tracesLine(knownSpans('base64'))], { gzip: true })]);
    expect(b64gz.v[0]!.requests).toBe(22);
    expect(percentilesOf(b64gz.v[0]!.e2eMs)).toEqual(percentilesOf(plain.v[0]!.e2eMs));
    expect(b64gz.aggregate.skipped.spans).toBe(0);
    expect(validId('AAAAAAAAAAAAAAAAAAAAAA==', 16)).toBe(false); // all zeros
    expect(validId(Buffer.from('0123456789abcdef', 'hex').toString('base64'), 8)).toBe(true);
    expect(validId('xyz', 8)).toBe(false);
  });

  it('counts and skips malformed lines, absurd durations, bad ids, huge identities; keeps going after each', async () => {
    const good = (i: number, extra: Partial<SpanSpec> = {}) => otlpSpan({ promptName: 'greet', version: 'v1', startMs: T0 + i, e2eMs: 200, ttftMs: 80, ...extra });
    const negative = { ...good(1), endTimeUnixNano: String(BigInt(T0) * 1_000_000n - 5n) };
    const astronomic = { ...good(2), endTimeUnixNano: '1' + '0'.repeat(20) }; // beyond 20 digits: not an int64
    const e30 = good(3, { ttftMs: 1e33 }); // TTFT of 1e30 s
    const e30End = { ...good(10), endTimeUnixNano: 1e30 }; // a number, not a string: beyond any Date, not a time
    const yearBeyondDates = { ...good(11), startTimeUnixNano: 1e22, endTimeUnixNano: 1e22 }; // zero duration, but no Date holds it
    const badId = { ...good(4), spanId: 'not-an-id' };
    const hugeVersion = good(5, { version: 'v'.repeat(10 * 1024 * 1024) });
    const hugeUnknown = good(6, { extra: { 'app.debug.dump': 'x'.repeat(10 * 1024 * 1024) } }); // unknown attribute: ignored, span kept
    const notGenAi = { ...good(7), attributes: [{ key: 'http.method', value: { stringValue: 'GET' } }] };
    const path = traceFile([
      '{"resourceSpans": [',
      'not json at all',
      '{"something":"else"}',
      tracesLine([negative, astronomic, e30, e30End, yearBeyondDates, badId, good(8)]),
      tracesLine([hugeVersion]),
      tracesLine([hugeUnknown, notGenAi, 'junk' as unknown as Record<string, unknown>]),
      tracesLine([good(9, { outputTokens: -3 })]),
    ]);
    const { v, aggregate, totals } = await only([path]);
    expect(totals.lines).toBe(7);
    expect(v[0]!.requests).toBe(2); // good(8) and the span with the 10 MB unknown attribute
    expect(aggregate.otherSpans).toBe(1);
    expect(aggregate.skipped.lines).toBe(3);
    expect(aggregate.skipped.reasons).toEqual({ 'malformed-json': 2, 'not-traces-data': 1, 'absurd-duration': 1, 'bad-timestamps': 3, 'absurd-ttft': 1, 'bad-id': 1, 'identity-too-long': 1, 'bad-span': 1, 'absurd-tokens': 1 });
    expect(aggregate.skipped.spans).toBe(9);
  });

  it('skips a line over the cap while streaming it, and reads the lines after it', async () => {
    const span = otlpSpan({ promptName: 'greet', version: 'v1', startMs: T0, e2eMs: 100 });
    const big = tracesLine([otlpSpan({ promptName: 'greet', version: 'v1', startMs: T0, e2eMs: 100, extra: { blob: 'y'.repeat(300_000) } })]);
    const path = traceFile([tracesLine([span]), big, tracesLine([span])]);
    const { v, aggregate } = await only([path], { maxLineBytes: 100_000 });
    expect(v[0]!.requests).toBe(2);
    expect(aggregate.skipped.reasons).toEqual({ 'line-too-long': 1 });
  });

  it('says a truncated gzip file is corrupt and keeps what came before', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => tracesLine([otlpSpan({ promptName: 'greet', version: 'v1', startMs: T0 + i, e2eMs: 100 + i, ids: 'hex' })]));
    const whole = gzipSync(`${lines.join('\n')}\n`);
    const path = join(dir, 'truncated.jsonl.gz');
    writeFileSync(path, whole.subarray(0, Math.floor(whole.length * 0.8)));
    const { v, aggregate } = await only([path]);
    expect(aggregate.skipped.reasons['corrupt-gzip']).toBe(1);
    expect(v[0]!.requests).toBeGreaterThan(100);
    expect(v[0]!.requests).toBeLessThan(200);
  });

  it('reads the prompt identity of Langfuse, Traceloop and OpenInference spans', async () => {
    const path = traceFile([
      tracesLine([
        otlpSpan({ identity: 'langfuse', promptName: 'greet', version: '7', startMs: T0, e2eMs: 100 }),
        otlpSpan({ identity: 'traceloop', promptName: 'greet', version: '3', startMs: T0, e2eMs: 100 }),
        otlpSpan({ identity: 'openinference', version: 'abc1234', startMs: T0, e2eMs: 100 }),
        otlpSpan({ startMs: T0, e2eMs: 100 }),
      ]),
    ]);
    const { v, aggregate } = await only([path]);
    expect(v.map((a) => [a.promptName, a.version]).sort()).toEqual([[null, 'abc1234'], ['greet', '3'], ['greet', '7']]);
    expect(aggregate.skipped.reasons).toEqual({ 'no-prompt-version': 1 });
  });

  it('reads files of older Collectors (instrumentationLibrarySpans, before OTLP 0.15)', async () => {
    const line = JSON.stringify({ resourceSpans: [{ instrumentationLibrarySpans: [{ spans: [otlpSpan({ promptName: 'g', version: 'v', startMs: T0, e2eMs: 10 })] }] }] });
    const { v } = await only([traceFile([line])]);
    expect(v[0]!.requests).toBe(1);
  });

  it('leaves out spans that ended before --since', async () => {
    const path = traceFile([tracesLine([otlpSpan({ promptName: 'g', version: 'v', startMs: T0 - 3_600_000, e2eMs: 10 }), otlpSpan({ promptName: 'g', version: 'v', startMs: T0, e2eMs: 10 })])]);
    const { v, aggregate } = await only([path], { sinceMs: T0 - 60_000 });
    expect(v[0]!.requests).toBe(1);
    expect(aggregate.outsideWindow).toBe(1);
  });

  it('says which file cannot be read', async () => {
    await expect(importOtlpFiles([join(dir, 'missing.jsonl')])).rejects.toThrow(/missing\.jsonl' was not found/);
  });
});

describe('damaged input, property-based (fixed seed)', () => {
  const valid = tracesLine([otlpSpan({ promptName: 'greet', version: 'v1', startMs: T0, e2eMs: 120, ttftMs: 40, outputTokens: 5, inputTokens: 9 }), otlpSpan({ promptName: 'greet', version: 'v1', startMs: T0, e2eMs: 90, errorType: 'timeout' })]);

  it('a valid line with bytes cut, replaced or inserted never throws; no span is counted twice', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(valid.length), fc.nat(8), fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 4 }), (edits) => {
        let text = valid;
        for (const [at, cut, insert] of edits) text = text.slice(0, at) + insert + text.slice(at + cut);
        const aggregate = new ProdAggregator();
        let data: unknown;
        try {
          data = JSON.parse(text);
        } catch {
          return; // the importer counts it as malformed-json
        }
        collectSpans(data, aggregate);
        const kept = [...aggregate.versions.values()].reduce((n, v) => n + v.requests, 0);
        const accounted = kept + aggregate.skipped.spans + aggregate.otherSpans + (aggregate.skipped.reasons['not-traces-data'] ?? 0);
        // A damaged key (`"sp ans"`) can hide a span — an empty batch is legal OTLP — but none is counted twice.
        expect(accounted).toBeLessThanOrEqual(2);
      }),
      seeded(300),
    );
  });

  it('any JSON value in place of the document, a span or an attribute value is skipped or read, never thrown on', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const aggregate = new ProdAggregator();
        collectSpans(value, aggregate);
        collectSpans({ resourceSpans: [{ scopeSpans: [{ spans: [value] }] }] }, aggregate);
        const span = otlpSpan({ promptName: 'greet', version: 'v1', startMs: T0, e2eMs: 100 });
        collectSpans({ resourceSpans: [{ scopeSpans: [{ spans: [{ ...span, attributes: [...(span.attributes as object[]), { key: 'gen_ai.response.time_to_first_chunk', value }, { key: 'gen_ai.usage.output_tokens', value: { intValue: value } }] }] }] }] }, aggregate);
        const total = [...aggregate.versions.values()].reduce((n, v) => n + v.requests, 0) + aggregate.skipped.spans + aggregate.skipped.lines + aggregate.otherSpans;
        expect(total).toBeGreaterThanOrEqual(2);
      }),
      seeded(300),
    );
  });
});

describe('line reader', () => {
  async function* chunks(parts: string[]): AsyncGenerator<Buffer> {
    for (const p of parts) yield Buffer.from(p);
  }
  async function collect(parts: string[], max = 10) {
    const out: string[] = [];
    for await (const e of readLines(chunks(parts), max)) out.push(e.kind === 'line' ? e.text : `<too-long ${e.bytes}>`);
    return out;
  }

  it('joins lines split across chunks, strips CR, drops empty lines, reports overlong lines with their size', async () => {
    expect(await collect(['ab', 'c\r\n\nde', 'f\n0123456', '789abcdef\nlast'])).toEqual(['abc', 'def', '<too-long 16>', 'last']);
    expect(await collect(['0123456789ABC\nok\n'])).toEqual(['<too-long 13>', 'ok']);
  });
});
