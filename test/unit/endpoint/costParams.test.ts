/**
 * Request parameters from a repository that change cost or data retention: listed by the core,
 * refused by `prompt-insight run` (exit 2, nothing sent) unless allowed by name or all at once; and
 * with `n > 1` only choice 0 is the run's answer (a real loopback server streams two choices).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costAffectingParams, costParamSetKey, unallowedCostParams } from '../../../src/core/endpoint/costParams';
import { normalizeParams } from '../../../src/core/endpoint/params';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { executePromptRuns, planPromptRun } from '../../../src/core/run/promptRun';
import { DONE, scriptedServer, sse, usage, type ScriptedServer } from '../../fixtures/scriptedServer';

const CLI = resolve('dist/cli.js');

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], (error, stdout, stderr) => done({ code: error ? (error as { code: number }).code : 0, stdout, stderr }));
  });
}

/** A Prompty file as a cloned repository could ship it: parameters that buy answers, a tier, retention and length. */
const COSTLY = `---
name: costly
model:
  api: chat
  configuration:
    type: openai
    name: gpt-4o-mini
  parameters:
    temperature: 0.2
    n: 64
    service_tier: priority
    store: true
    max_tokens: 1000000
---
user:
Say ok.
`;

describe('costAffectingParams', () => {
  it('lists n, service_tier, store and a huge max_tokens, with why; ordinary sampling parameters are not listed', () => {
    const found = costAffectingParams(normalizeParams({ temperature: 0.2, top_p: 0.9, seed: 7, n: 64, service_tier: 'priority', store: true, max_tokens: 1_000_000, stop: ['\n'] }));
    expect(found.map((p) => [p.name, p.value])).toEqual([
      ['n', 64],
      ['service_tier', 'priority'],
      ['store', true],
      ['max_tokens', 1_000_000],
    ]);
    for (const p of found) expect(p.why.length).toBeGreaterThan(10);
  });

  it('catches the other spellings and levers, and leaves harmless values alone', () => {
    const names = (params: Record<string, unknown>) => costAffectingParams(params).map((p) => p.name);
    // max_completion_tokens and maxOutputTokens arrive as max_tokens after normalising, and are caught unnormalised too.
    expect(names(normalizeParams({ max_completion_tokens: 200_000 }))).toEqual(['max_tokens']);
    expect(names({ max_completion_tokens: 200_000, maxOutputTokens: 50_000, n_predict: -1, num_predict: -1 })).toEqual(['max_completion_tokens', 'maxOutputTokens', 'n_predict', 'num_predict']);
    expect(names({ n: '8', best_of: 4, use_beam_search: true, ignore_eos: true, min_tokens: 100_000, prompt_cache_retention: '24h', modalities: ['text', 'audio'], tools: [{ type: 'web_search_preview' }, { type: 'function', function: { name: 'f' } }] })).toEqual([
      'n',
      'best_of',
      'use_beam_search',
      'ignore_eos',
      'min_tokens',
      'prompt_cache_retention',
      'modalities',
      'tools',
    ]);
    expect(names({ n: 1, best_of: 1, service_tier: 'auto', store: false, max_tokens: 4096, prompt_cache_retention: 'in_memory', modalities: ['text'], tools: [{ type: 'function' }], logprobs: true, top_logprobs: 5 })).toEqual([]);
    // A parameter named after an Object.prototype member is not a check.
    expect(names(JSON.parse('{"constructor": 5, "toString": 1, "__proto__": {"n": 9}}'))).toEqual([]);
  });

  it('allowing by name leaves the rest; the set key ignores order', () => {
    const found = costAffectingParams({ n: 2, store: true });
    expect(unallowedCostParams(found, { names: ['n'] }).map((p) => p.name)).toEqual(['store']);
    expect(unallowedCostParams(found, { all: true })).toEqual([]);
    expect(costParamSetKey(found)).toBe(costParamSetKey(costAffectingParams({ store: true, n: 2 })));
    expect(costParamSetKey(found)).not.toBe(costParamSetKey(costAffectingParams({ store: true, n: 3 })));
  });
});

describe('prompt-insight run with cost parameters (dist/cli.js, real loopback endpoint)', () => {
  let server: ScriptedServer;
  let dir: string;
  beforeAll(async () => {
    server = await scriptedServer(() => ({ steps: [{ write: sse({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] }) }, { write: usage(3, 1) }, { write: DONE }] }));
    dir = mkdtempSync(join(tmpdir(), 'pi-cost-'));
    writeFileSync(join(dir, 'costly.prompty'), COSTLY);
  });
  afterAll(() => server.close());
  const posts = () => server.requests.filter((r) => r.method === 'POST');

  it('refuses with exit 2, names every parameter and the flags, and sends nothing', async () => {
    const result = await cli(['run', join(dir, 'costly.prompty'), '--endpoint', server.url, '--no-store']);
    expect(result.code).toBe(2);
    for (const text of ['n: 64', 'service_tier: priority', 'store: true', 'max_tokens: 1000000', '--allow-param n', '--allow-cost-params', 'Nothing was sent']) expect(result.stderr).toContain(text);
    expect(posts()).toHaveLength(0);
  });

  it('allowing some by name still refuses the others', async () => {
    const result = await cli(['run', join(dir, 'costly.prompty'), '--endpoint', server.url, '--no-store', '--allow-param', 'n', '--allow-param', 'store']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('service_tier: priority');
    expect(result.stderr).not.toContain('n: 64');
    expect(posts()).toHaveLength(0);
  });

  it('sends them as written once every one is allowed', async () => {
    const byName = await cli(['run', join(dir, 'costly.prompty'), '--endpoint', server.url, '--no-store', ...['n', 'service_tier', 'store', 'max_tokens'].flatMap((n) => ['--allow-param', n])]);
    expect(byName.code).toBe(0);
    const all = await cli(['run', join(dir, 'costly.prompty'), '--endpoint', server.url, '--no-store', '--allow-cost-params']);
    expect(all.code).toBe(0);
    expect(posts()).toHaveLength(2);
    expect(JSON.parse(posts()[0]!.body)).toMatchObject({ n: 64, service_tier: 'priority', store: true, max_tokens: 1_000_000 });
  });
});

describe('n > 1: only choice 0 is recorded', () => {
  it('two interleaved choices stream; the answer, its end and its length are choice 0 alone', async () => {
    const chunk = (index: number, content: string | null, finish: string | null = null) => sse({ id: 'x', object: 'chat.completion.chunk', choices: [{ index, delta: content === null ? {} : { content }, finish_reason: finish }] });
    const server = await scriptedServer(() => ({
      steps: [
        { write: sse({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant' } }, { index: 1, delta: { role: 'assistant' } }] }) },
        { write: chunk(1, 'Other ') },
        { wait: 30 },
        { write: chunk(0, 'First ') },
        { wait: 30 },
        { write: chunk(1, 'choice ', 'stop') },
        { wait: 30 },
        { write: chunk(0, 'answer.') },
        { wait: 30 },
        { write: chunk(0, null, 'length') },
        { write: sse({ id: 'x', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 5, completion_tokens: 40 } }) },
        { write: DONE },
      ],
    }));
    try {
      const plan = await planPromptRun('p.prompt.txt', 'Say two things.', { endpointModel: 'm' });
      plan.request.params = { n: 2 };
      const result = await executePromptRuns(httpTransport({ name: 'two-choices', provider: 'openai', baseUrl: server.url }, undefined), plan, { runs: 1, concurrency: 1, warmup: 0, timeoutMs: 5000 });
      const [outcome] = result.outcomes;
      expect(outcome!.text.answer).toBe('First answer.');
      expect(outcome!.record).toMatchObject({ ok: true, finishReason: 'length', outputTokensSource: 'estimate' });
      // Usage counted both choices (40): the recorded length is choice 0's own, so TPOT is not divided by answers never recorded.
      expect(outcome!.record.outputTokens).toBeLessThan(10);
      // TTFT is choice 0's first token, which came after choice 1's.
      expect(outcome!.record.ttftMs!).toBeGreaterThanOrEqual(25);
    } finally {
      await server.close();
    }
  });

  it('a server that ignores stream:true and answers one JSON body with two choices: choice 0 only', async () => {
    const body = JSON.stringify({ choices: [{ index: 1, message: { content: 'Other choice.' }, finish_reason: 'stop' }, { index: 0, message: { content: 'First answer.' }, finish_reason: 'length' }], usage: { prompt_tokens: 5, completion_tokens: 40 } });
    const server = await scriptedServer(() => ({ headers: { 'content-type': 'application/json' }, steps: [{ write: body }] }));
    try {
      const plan = await planPromptRun('p.prompt.txt', 'Say two things.', { endpointModel: 'm' });
      const result = await executePromptRuns(httpTransport({ name: 'two-choices-json', provider: 'openai', baseUrl: server.url }, undefined), plan, { runs: 1, concurrency: 1, warmup: 0, timeoutMs: 5000 });
      expect(result.outcomes[0]!.text.answer).toBe('First answer.');
      expect(result.outcomes[0]!.record).toMatchObject({ ok: true, finishReason: 'length', outputTokensSource: 'estimate', inputTokens: 5 });
    } finally {
      await server.close();
    }
  });
});
