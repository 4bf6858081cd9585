import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runOnce } from '../../../src/core/endpoint/runOnce';
import { httpTransport } from '../../../src/core/endpoint/transport';
import type { ChatRequest } from '../../../src/core/endpoint/types';
import { NEUTRAL_ANSWER, parseScenario } from '../../../src/core/sim/scenario';
import { startSim, type RunningSim, type SimOptions } from '../../../src/core/sim/simServer';

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
    const short = await measure({ ttftBaseMs: 60, prefillMsPerInputToken: 1, decodeMsPerToken: 5, outputTokens: 20 });
    const long = await measure({}, ask('homes '.repeat(200)));
    expect(short.record.ok && long.record.ok).toBe(true);
    const inputDelta = long.record.inputTokens! - short.record.inputTokens!;
    expect(inputDelta).toBeGreaterThan(190);
    // The simulator's own clock (its report of when it wrote the first token after the request arrived),
    // so a busy machine's connection set-up for the first request does not enter the difference.
    expect(long.record.server!.ttftMs! - short.record.server!.ttftMs!).toBeGreaterThan(inputDelta - 15);
    expect(long.record.server!.ttftMs! - short.record.server!.ttftMs!).toBeLessThan(inputDelta + 15);
    expect(short.record.ttftMs!).toBeGreaterThanOrEqual(60);
    expect(short.record.tpotMs!).toBeGreaterThan(4);
    expect(short.record.tpotMs!).toBeLessThan(8);
    expect(short.record).toMatchObject({ simulated: true, outputTokensSource: 'usage', inputTokensSource: 'usage', finishReason: 'stop' });
    expect(short.record.server!.ttftMs!).toBeGreaterThanOrEqual(60);
  });

  it('multi-token chunks, reasoning deltas first, max_tokens honoured', async () => {
    const { record, text } = await measure({ ttftBaseMs: 20, decodeMsPerToken: 2, tokensPerChunk: 3, reasoningTokens: 4, outputTokens: 30 }, ask('x', { params: { max_tokens: 12 } }));
    expect(record.outputTokens).toBe(16); // 4 reasoning + 12 answer
    expect(text.reasoning).toBe('Thinking step step step');
    expect(record.firstAnswerMs!).toBeGreaterThan(record.ttftMs!);
    expect(record.itlMs.length).toBe(2 + 4 - 1); // chunks: 2 reasoning (3+1) + 4 answer (3×4)
    expect(record.finishReason).toBe('length');
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
