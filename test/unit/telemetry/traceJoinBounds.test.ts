/**
 * The trace join's memory bounds under hostile traces: messages from log records per call and in all, the
 * text held calls carry, answers from log records — each within its budget, the oldest going first, the
 * newest still joined to its call.
 */
import { describe, expect, it } from 'vitest';
import type { ModelCall } from '../../../src/core/telemetry/spanFields';
import { TraceJoin, type JoinedCall } from '../../../src/core/telemetry/traceJoin';

const call = (traceId: string, answer: string | null = null): ModelCall => ({
  source: 'otel-genai', traceId, spanId: 'b'.repeat(16), parentSpanId: null, own: { name: null, version: null },
  startMs: 100, endMs: 110, e2eMs: 10, ttftMs: null, tpotMs: null, inputTokens: null, outputTokens: null, cacheReadTokens: null, errorType: null,
  messages: null, contentTooLarge: false, answer, systemSha256: null,
});
const SPAN = 'b'.repeat(16);

describe('trace join bounds', () => {
  it('at most 200 messages a call from log records, none over the capture cap', () => {
    const got: JoinedCall[] = [];
    const join = new TraceJoin((c) => got.push(c), { content: true });
    for (let i = 0; i < 100_000; i++) join.message('t', SPAN, { role: 'user', content: `m${i}` });
    join.message('t', SPAN, { role: 'user', content: 'x'.repeat(300 * 1024) });
    join.modelCall(call('t'), null);
    join.end();
    expect(got[0]!.messages).toHaveLength(200);
    expect(got[0]!.messages!.every((m) => m.content.length < 10)).toBe(true);
  });

  it('log-record text over the budget: the oldest calls\' messages and answers go, the newest stay joined', () => {
    const got = new Map<string, JoinedCall>();
    const join = new TraceJoin((c) => got.set(c.traceId, c), { content: true, maxTextChars: 1_000_000 });
    const chunk = 'y'.repeat(10_000);
    for (let i = 0; i < 1_000; i++) {
      join.message(`t${i}`, SPAN, { role: 'user', content: chunk });
      join.answer(`t${i}`, SPAN, chunk);
    }
    join.modelCall(call('t0'), null);
    join.modelCall(call('t999'), null);
    join.end();
    expect(got.get('t0')!.messages).toBeNull();
    expect(got.get('t0')!.answer).toBeNull();
    expect(got.get('t999')!.messages).toEqual([{ role: 'user', content: chunk }]);
    expect(got.get('t999')!.answer).toBe(chunk);
  });

  it('held calls carrying more text than the budget are released oldest first, each still emitted once', () => {
    const emitted: string[] = [];
    const join = new TraceJoin((c) => emitted.push(c.traceId), { content: true, holdIdentified: true, maxTextChars: 1_000_000 });
    for (let i = 0; i < 500; i++) join.modelCall(call(`t${i}`, 'z'.repeat(100_000)), null);
    // Ten calls' text fits: the rest were released (judged with what had arrived) as newer ones came.
    expect(emitted.length).toBeGreaterThanOrEqual(489);
    expect(emitted.slice(0, 3)).toEqual(['t0', 't1', 't2']);
    join.end();
    expect(emitted).toHaveLength(500);
    expect(new Set(emitted).size).toBe(500);
  });

  it('the same span exported again (a retry) replaces the first copy\'s text: after it, calls are still held for their root', () => {
    const got = new Map<string, JoinedCall>();
    const join = new TraceJoin((c) => got.set(c.traceId, c), { content: true, holdIdentified: true, maxTextChars: 10_000 });
    const withText = (traceId: string): ModelCall => ({ ...call(traceId), messages: [{ role: 'user', content: 'r'.repeat(4_000) }] });
    for (let i = 0; i < 4; i++) join.modelCall(withText('t0'), null);
    join.span('t0', 'a'.repeat(16), null, { name: 'greet', version: 'v1' });
    expect(got.get('t0')!.identity).toEqual({ name: 'greet', version: 'v1' });
    // Two calls of 4,000 characters fit the 10,000 budget together: neither is let go before its root arrives.
    join.modelCall(withText('t1'), null);
    join.modelCall(withText('t2'), null);
    join.span('t1', 'a'.repeat(16), null, { name: 'greet', version: 'v2' });
    join.span('t2', 'a'.repeat(16), null, { name: 'greet', version: 'v3' });
    join.end();
    expect(got.get('t1')!.identity.version).toBe('v2');
    expect(got.get('t2')!.identity.version).toBe('v3');
  });

  it('thousands of empty messages a call are not free: held calls carrying them are bounded by the budget too', () => {
    const emitted: string[] = [];
    const join = new TraceJoin((c) => emitted.push(c.traceId), { content: true, holdIdentified: true, maxTextChars: 1_000_000 });
    const empties = Array.from({ length: 9_000 }, () => ({ role: 'user', content: '' }));
    for (let i = 0; i < 100; i++) join.modelCall({ ...call(`t${i}`), messages: empties }, null);
    // 9,000 messages at 64 characters each: one call's worth fits, the others were released as newer ones came.
    expect(emitted.length).toBeGreaterThanOrEqual(98);
    join.end();
    expect(new Set(emitted).size).toBe(100);
  });
});
