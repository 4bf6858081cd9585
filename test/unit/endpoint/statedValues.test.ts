/**
 * What a server states about a request (Ollama's durations and counts, llama.cpp's timings, usage) is
 * checked before a record is built: an answer with durations of 1e300 or counts of −1 is stored as a
 * readable run without those values, never as a line the store skips as unreadable on export (issue 20).
 * Real loopback servers speak Ollama's NDJSON and llama.cpp's SSE; runs go through the real store.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { httpTransport } from '../../../src/core/endpoint/transport';
import type { EndpointConfig } from '../../../src/core/endpoint/types';
import { executePromptRuns, planPromptRun } from '../../../src/core/run/promptRun';
import { runsToJson } from '../../../src/core/store/export';
import { ResultsStore } from '../../../src/core/store/resultsStore';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

async function serve(contentType: string, body: (index: number) => string): Promise<string> {
  let index = 0;
  server = createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(404).end();
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': contentType }).end(body(index++)));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Ollama's /api/chat stream: one content line, then the final object with `done: true` and the given fields. */
function ollamaAnswer(final: Record<string, unknown>): string {
  return `${JSON.stringify({ message: { role: 'assistant', content: 'ok' }, done: false })}\n${JSON.stringify({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', ...final })}\n`;
}

const HOSTILE_FINALS: Record<string, unknown>[] = [
  { total_duration: 1e300, load_duration: 1e300, prompt_eval_count: -1, prompt_eval_duration: 1e300, eval_count: -1, eval_duration: 1e300 },
  { prompt_eval_count: 1e300, prompt_eval_duration: 5_000_000, eval_count: 1.5, eval_duration: -3 },
  { prompt_eval_count: 12, prompt_eval_duration: 1e20, eval_count: 3, eval_duration: 9_000_000 },
];

async function runAndStore(endpoint: EndpointConfig, runs: number) {
  const store = new ResultsStore(join(mkdtempSync(join(tmpdir(), 'pi-stated-')), 'runs.jsonl'));
  const plan = await planPromptRun('p.prompt.txt', 'Say ok.', { endpointModel: 'm' });
  const result = await executePromptRuns(httpTransport(endpoint, undefined), plan, { runs, concurrency: 1, warmup: 0, timeoutMs: 5000, store });
  return { result, store };
}

describe('values a server states are checked before they are stored', () => {
  it('Ollama: durations of 1e300 ns, counts of −1, 1e300 or 1.5 leave readable runs without those values', async () => {
    const url = await serve('application/x-ndjson', (i) => ollamaAnswer(HOSTILE_FINALS[i]!));
    const { result, store } = await runAndStore({ name: 'ollama-like', provider: 'ollama', baseUrl: url }, HOSTILE_FINALS.length);
    expect(result.outcomes.map((o) => o.record.ok)).toEqual([true, true, true]);
    const contents = store.read();
    expect(contents.skippedLines).toBe(0);
    expect(contents.records).toHaveLength(3);
    const [first, second, third] = contents.records.map((r) => r.run);
    // Nothing it stated was readable: no phases, counts are our estimates.
    expect(first).toMatchObject({ phases: null, inputTokensSource: 'estimate', outputTokensSource: 'estimate' });
    // Its prefill time was readable (5 ms); the impossible counts and the negative decode time were not.
    expect(second!.phases).toMatchObject({ prefillMs: 5, decodeMs: null, source: 'ollama durations' });
    expect(second).toMatchObject({ inputTokensSource: 'estimate', outputTokensSource: 'estimate' });
    // 1e20 ns is three years: not a prefill time; the counts are fine.
    expect(third).toMatchObject({ phases: null, inputTokens: 12, outputTokens: 3, inputTokensSource: 'usage' });
    expect(JSON.parse(runsToJson(contents.records))).toHaveLength(3);
  });

  it('llama.cpp timings and OpenAI usage: the same checks', async () => {
    const chunk = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
    const url = await serve('text/event-stream', () =>
      [
        chunk({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] }),
        chunk({ choices: [], usage: { prompt_tokens: -1, completion_tokens: 1e300, prompt_tokens_details: { cached_tokens: 2 ** 60 } }, timings: { prompt_n: 4, prompt_ms: 1e300, predicted_n: -2, predicted_ms: 3, cache_n: 0 } }),
        'data: [DONE]\n\n',
      ].join(''),
    );
    const { result, store } = await runAndStore({ name: 'llama-like', provider: 'openai', baseUrl: `${url}/v1` }, 1);
    expect(result.outcomes[0]!.record).toMatchObject({ ok: true, phases: null, inputTokensSource: 'estimate', outputTokensSource: 'estimate', cachedInputTokens: 0 });
    expect(store.read()).toMatchObject({ skippedLines: 0, records: [expect.anything()] });
  });

  it('the store refuses to write a record it could not read back, and writes nothing of that batch', async () => {
    const url = await serve('application/x-ndjson', () => ollamaAnswer({ prompt_eval_count: 3, prompt_eval_duration: 1_000_000, eval_count: 1, eval_duration: 1_000_000 }));
    const { result, store } = await runAndStore({ name: 'ollama-like', provider: 'ollama', baseUrl: url }, 1);
    const good = { key: { promptHash: 'h', endpoint: 'e', model: 'm', paramsHash: 'p' }, file: 'p.prompt.txt', prompt: 'p', endpointName: 'e', simulated: false, answer: 'ok' };
    const before = readFileSync(store.path, 'utf8');
    const broken = { ...result.outcomes[0]!.record, phases: { queueMs: 0, prefillMs: 1e294, decodeMs: null, source: 'ollama durations' as const } };
    expect(() => store.append([{ ...good, run: result.outcomes[0]!.record }, { ...good, run: broken }])).toThrow(/not stored: .*prefillMs/);
    expect(readFileSync(store.path, 'utf8')).toBe(before);
  });
});
