import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runOnce } from '../../../src/core/run/runOnce';
import { httpTransport } from '../../../src/core/endpoint/transport';
import type { ChatRequest } from '../../../src/core/endpoint/types';
import { NEUTRAL_ANSWER, parseScenario } from '../../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';
import type { SimOptions } from '../../../src/core/sim/simOptions';

let sim: RunningSim | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'gpt-4o', messages: [{ role: 'user', content }], params: {}, ...extra });

async function measure(options: Partial<SimOptions>, request: ChatRequest = ask('find homes nearby'), timeoutMs = 5000) {
  sim ??= await startSim({ jitterMs: 0, ...options });
  return runOnce(httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url, simulated: true }, undefined), request, { timeoutMs, countTokens: () => 1, inputTokensEstimate: null, maxRetries: 0 });
}

describe('simulated endpoint', () => {
  it('TTFT = base + prefill per input token; decode interval per token; labelled simulated; usage reported', async () => {
    // Checked as a schedule, not against the wall clock: the simulator's own prefill (llama-server's
    // timings.prompt_ms, reported with slots) is exactly base + per-token × input tokens, and what was
    // measured can only be later than scheduled (a timer never fires early; a busy machine adds to it).
    const short = await measure({ ttftBaseMs: 60, prefillMsPerInputToken: 1, decodeMsPerToken: 5, outputTokens: 20, slots: 1 });
    const long = await measure({}, ask('homes '.repeat(200)));
    expect(short.record.ok && long.record.ok).toBe(true);
    const inputDelta = long.record.inputTokens! - short.record.inputTokens!;
    expect(inputDelta).toBeGreaterThan(190);
    expect(short.record.phases).toMatchObject({ prefillMs: 60 + short.record.inputTokens!, source: 'llama.cpp timings' });
    expect(long.record.phases).toMatchObject({ prefillMs: 60 + long.record.inputTokens!, source: 'llama.cpp timings' });
    for (const { record } of [short, long]) {
      // Node's timers count whole milliseconds from when they were set: up to 1 ms early against a sub-millisecond clock.
      expect(record.server!.ttftMs!).toBeGreaterThanOrEqual(record.phases!.prefillMs - 1);
      expect(record.ttftMs!).toBeGreaterThanOrEqual(record.server!.ttftMs! - 1);
      // 19 decode intervals of 5 ms follow the scheduled first token: E2E at least prefill + 95 ms. (TPOT
      // itself may read under 5 ms on a busy machine: a late first token leaves the fixed schedule less to span.)
      expect(record.e2eMs!).toBeGreaterThanOrEqual(record.phases!.prefillMs + 19 * 5 - 1);
      expect(record.tpotMs!).toBeGreaterThan(0);
    }
    expect(short.record).toMatchObject({ simulated: true, outputTokensSource: 'usage', inputTokensSource: 'usage', finishReason: 'stop' });
  });

  it('multi-token chunks, reasoning deltas first, max_tokens honoured', async () => {
    const { record, text } = await measure({ ttftBaseMs: 20, decodeMsPerToken: 2, tokensPerChunk: 3, reasoningTokens: 4, outputTokens: 30 }, ask('x', { params: { max_tokens: 12 } }));
    expect(record.outputTokens).toBe(16); // 4 reasoning + 12 answer
    expect(text.reasoning).toBe('Thinking step step step');
    expect(record.firstAnswerMs!).toBeGreaterThan(record.ttftMs!);
    expect(record.finishReason).toBe('length');
    // The chunks as sent: 2 reasoning (3+1 tokens) then 4 answer (3×4), read from the raw stream. (The
    // client's gaps can be fewer: chunks the simulator sends in one turn, when late, arrive together.)
    const raw = await (await fetch(`${sim!.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], stream: true, max_tokens: 12 }) })).text();
    const deltas = raw.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)).choices[0]?.delta ?? {});
    expect(deltas.filter((d) => d.reasoning_content).length).toBe(2);
    expect(deltas.filter((d) => d.content).length).toBe(4);
    expect(record.itlMs.length).toBeGreaterThanOrEqual(1);
    expect(record.itlMs.length).toBeLessThanOrEqual(2 + 4 - 1);
  });

  it.each([
    ['429', 'rate_limited'],
    ['500', 'http_5xx'],
    ['reset', 'connection_reset'],
    ['stall', 'timeout'],
    ['malformed', 'malformed_stream'],
  ] as const)('fault %s → %s', async (fault, kind) => {
    const { record } = await measure({ ttftBaseMs: 10, decodeMsPerToken: 2, fault }, ask('x'), 400);
    expect(record.ok).toBe(false);
    expect(record.error!.kind).toBe(kind);
  });

  it('fault non-streaming: one JSON body, TTFT = E2E', async () => {
    const { record } = await measure({ ttftBaseMs: 30, decodeMsPerToken: 1, fault: 'non-streaming' });
    expect(record).toMatchObject({ ok: true, streamed: false });
    expect(record.ttftMs).toBe(record.e2eMs);
  });

  it('a scenario maps prompt features to answer distributions', async () => {
    const scenario = parseScenario(`
rules:
  - whenPromptContains: "single-family"
    answers: ["Detached house on Elm St."]
answers:
  - { weight: 1, text: "Apartment downtown." }
`);
    sim = await startSim({ jitterMs: 0, ttftBaseMs: 5, decodeMsPerToken: 1, scenario });
    expect((await measure({}, ask('homes means single-family houses. Find homes.'))).text.answer).toBe('Detached house on Elm St.');
    expect((await measure({}, ask('Find homes.'))).text.answer).toBe('Apartment downtown.');
    expect(() => parseScenario('rules: [{ answers: [] }]\nanswers: [a]')).toThrow(/whenPromptContains/);
  });

  it('a prompt the homes scenario does not cover gets a neutral answer, not house listings', async () => {
    sim = await startSim({ jitterMs: 0, ttftBaseMs: 5, decodeMsPerToken: 1, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
    const neutral = (await measure({}, ask('Translate "good morning" into French.'))).text.answer;
    expect(neutral).toBe(NEUTRAL_ANSWER);
    expect(neutral).not.toMatch(/house|apartment|condo|\$/i);
    expect((await measure({}, ask('Find homes in Bellevue.'))).text.answer).toMatch(/Bellevue/);
    expect(() => parseScenario('appliesWhenPromptContains: 3\nanswers: [a]')).toThrow(/appliesWhenPromptContains/);
  });
});
