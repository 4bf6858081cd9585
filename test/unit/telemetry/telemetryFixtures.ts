/** Stored runs as the store writes them, for the telemetry tests. */
import type { RunCheck } from '../../../src/core/adherence/runChecks';
import type { StoredRun } from '../../../src/core/store/resultsStore';
import { runKeyOf } from '../../../src/core/store/runKey';
import type { TelemetryRun } from '../../../src/core/telemetry/runSpans';

export const MESSAGES = [{ role: 'system', content: 'You list homes.' }, { role: 'user', content: 'Homes in Lyon?' }];

export function storedRun(overrides: Omit<Partial<StoredRun>, 'run'> & { run?: Partial<StoredRun['run']> } = {}): StoredRun {
  const { run, ...rest } = overrides;
  return {
    v: 1,
    id: '3f2b8c1e-7d4a-4b6e-9c0d-1a2b3c4d5e6f',
    at: '2026-12-04T12:00:01.500Z',
    key: runKeyOf({ name: 'llama', provider: 'openai', baseUrl: 'http://llm.internal:8080/v1' }, { model: 'qwen3-mini', messages: MESSAGES, params: {} }),
    file: 'prompts/homes.prompty',
    prompt: 'homes',
    endpointName: 'llama',
    simulated: false,
    revision: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
    testCase: 0,
    run: {
      ok: true, status: 200, error: null, ttftMs: 420, firstAnswerMs: 420, e2eMs: 1480, streamEndMs: 1500,
      outputTokens: 54, outputTokensSource: 'usage', inputTokens: 1200, inputTokensSource: 'usage', tpotMs: 20, itlMs: [20, 25, 30],
      finishReason: 'stop', streamed: true, retries: 0, cachedInputTokens: 1024, cache: 'warm',
      phases: { queueMs: 20, prefillMs: 400, decodeMs: 1060, source: 'llama.cpp timings' },
      ...run,
    },
    answer: 'Two flats in Lyon.',
    ...rest,
  };
}

export const FAILED_CHECK: RunCheck = { status: 'fail', caseName: 'lyon', failed: [{ label: 'contains "Lyon"', reason: 'the answer never says Lyon', outcome: 'fail' }] };

export function telemetryRun(overrides: Parameters<typeof storedRun>[0] = {}, check?: RunCheck): TelemetryRun {
  return { run: storedRun(overrides), ...(check ? { check } : {}), inputMessages: MESSAGES };
}
