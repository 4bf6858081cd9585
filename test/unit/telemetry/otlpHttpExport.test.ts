/**
 * Runs exported through the OpenTelemetry SDK's OTLP/HTTP exporters to a real receiver on 127.0.0.1,
 * which decodes what it gets (OTLP JSON) and checks every attribute, event, id, time and histogram.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSecret } from '../../../src/core/endpoint/secrets';
import { DURATION_BUCKETS_S, TOKEN_USAGE_BUCKETS } from '../../../src/core/telemetry/genaiConventions';
import { exportRunsOtlpHttp } from '../../../src/core/telemetry/otelExport';
import { FAILED_CHECK, telemetryRun } from './telemetryFixtures';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
  server = undefined;
  delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
  delete process.env.OTEL_SEMCONV_STABILITY_OPT_IN;
});

async function receiver(status = 200): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? '{}' : '{"code":13,"message":"backend down"}');
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, received };
}

const attrs = (list: { key: string; value: Record<string, unknown> }[]): Record<string, unknown> =>
  Object.fromEntries(list.map(({ key, value }) => [key, 'arrayValue' in value ? (value.arrayValue as { values: { stringValue: string }[] }).values.map((v) => v.stringValue) : Object.values(value)[0]]));

describe('OTLP/HTTP export', () => {
  it('sends one GenAI client span per run with every attribute, evaluation events parented to it, and the headers from the environment', async () => {
    const { url, received } = await receiver();
    process.env.OTEL_EXPORTER_OTLP_HEADERS = 'x-api-key=collector-token-123';
    const failed = telemetryRun({ id: '00000000-0000-4000-8000-000000000002', at: '2026-12-04T12:00:05.000Z', run: { ok: false, status: 503, error: { kind: 'http_5xx', message: 'upstream busy' }, ttftMs: null, firstAnswerMs: null, e2eMs: null, streamEndMs: 250, outputTokens: null, outputTokensSource: null, tpotMs: null, itlMs: [], finishReason: null, cache: 'unknown', phases: null, cachedInputTokens: null } });
    const outcome = await exportRunsOtlpHttp([telemetryRun({}, FAILED_CHECK), failed], { endpoint: url }, { version: '0.1.0' });
    expect(outcome.errors).toEqual([]);
    const traces = received.filter((r) => r.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces[0]!.headers['x-api-key']).toBe('collector-token-123');
    expect(traces[0]!.headers['content-type']).toBe('application/json');
    const resourceSpans = traces.flatMap((t) => t.body.resourceSpans);
    expect(attrs(resourceSpans[0].resource.attributes)).toMatchObject({ 'service.name': 'prompt-insight', 'service.version': '0.1.0' });
    const scopeSpans = resourceSpans.flatMap((r: any) => r.scopeSpans);
    expect(scopeSpans[0].scope).toMatchObject({ name: 'prompt-insight', version: '0.1.0' });
    expect(scopeSpans[0].schemaUrl).toBe('https://opentelemetry.io/schemas/1.41.1');
    const spans = scopeSpans.flatMap((s: any) => s.spans);
    expect(spans).toHaveLength(2);
    const [ok, bad] = spans;

    expect(ok.name).toBe('chat qwen3-mini');
    expect(ok.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(ok.traceId).toBe('3f2b8c1e7d4a4b6e9c0d1a2b3c4d5e6f'); // the stored run's id
    expect(ok.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(ok.parentSpanId ?? '').toBe('');
    expect(ok.startTimeUnixNano).toBe(String(Date.parse('2026-12-04T12:00:00.000Z') * 1e6));
    expect(ok.endTimeUnixNano).toBe(String(Date.parse('2026-12-04T12:00:01.500Z') * 1e6));
    expect(ok.status?.code ?? 0).toBe(0);
    const a = attrs(ok.attributes);
    expect(a).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'qwen3-mini',
      'gen_ai.response.model': 'qwen3-mini',
      'gen_ai.prompt.name': 'homes',
      'gen_ai.prompt.version': 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 54,
      'gen_ai.usage.cache_read.input_tokens': 1024,
      'gen_ai.response.time_to_first_chunk': 0.42,
      'server.address': 'llm.internal',
      'server.port': 8080,
      'prompt_insight.run.id': '3f2b8c1e-7d4a-4b6e-9c0d-1a2b3c4d5e6f',
      'prompt_insight.prompt.file': 'prompts/homes.prompty',
      'prompt_insight.prompt.revision': 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
      'prompt_insight.prompt.content_hash': expect.stringMatching(/^[0-9a-f]{64}$/),
      'prompt_insight.endpoint.name': 'llama',
      'prompt_insight.simulated': false,
      'prompt_insight.streamed': true,
      'prompt_insight.retries': 0,
      'prompt_insight.test_case': 0,
      'prompt_insight.usage.input_tokens.source': 'usage',
      'prompt_insight.usage.output_tokens.source': 'usage',
      'prompt_insight.e2e': 1.48,
      'prompt_insight.time_per_output_token': 0.02,
      'prompt_insight.cache': 'warm',
      'prompt_insight.phase.queue': 0.02,
      'prompt_insight.phase.prefill': 0.4,
      'prompt_insight.phase.decode': 1.06,
      'prompt_insight.phase.source': 'llama.cpp timings',
    });
    // No prompt or answer text without the opt-in.
    expect(JSON.stringify(received.map((r) => r.body))).not.toContain('Two flats in Lyon');
    expect(JSON.stringify(received.map((r) => r.body))).not.toContain('Homes in Lyon?');

    expect(ok.events).toHaveLength(2);
    expect(ok.events.map((e: any) => e.name)).toEqual(['gen_ai.evaluation.result', 'gen_ai.evaluation.result']);
    expect(attrs(ok.events[0].attributes)).toEqual({ 'gen_ai.evaluation.name': 'test case: lyon', 'gen_ai.evaluation.score.label': 'fail', 'gen_ai.evaluation.score.value': 0, 'gen_ai.evaluation.explanation': 'did not pass: contains "Lyon" (fail)' });
    expect(attrs(ok.events[1].attributes)).toEqual({ 'gen_ai.evaluation.name': 'contains "Lyon"', 'gen_ai.evaluation.score.label': 'fail', 'gen_ai.evaluation.score.value': 0 }); // the reason is answer text: only with content capture
    expect(ok.events[0].timeUnixNano).toBe(ok.endTimeUnixNano);

    expect(bad.traceId).toBe('00000000000040008000000000000002');
    expect(bad.status.code).toBe(2); // STATUS_CODE_ERROR
    const b = attrs(bad.attributes);
    expect(b['error.type']).toBe('http_5xx');
    expect(b['prompt_insight.error.message']).toBe('upstream busy');
    expect(b).not.toHaveProperty('gen_ai.response.model');
    expect(b).not.toHaveProperty('gen_ai.response.time_to_first_chunk');
    expect(b).not.toHaveProperty('gen_ai.usage.output_tokens');
    expect(bad.events ?? []).toEqual([]);

    expect(received.filter((r) => r.path === '/v1/metrics')).toHaveLength(1); // sent once, not once per flush
    const metrics = received.filter((r) => r.path === '/v1/metrics').flatMap((r) => r.body.resourceMetrics.flatMap((rm: any) => rm.scopeMetrics.flatMap((s: any) => s.metrics)));
    const byName = Object.fromEntries(metrics.map((m: any) => [m.name, m]));
    expect(Object.keys(byName).sort()).toEqual(['gen_ai.client.operation.duration', 'gen_ai.client.operation.time_per_output_chunk', 'gen_ai.client.operation.time_to_first_chunk', 'gen_ai.client.token.usage']);
    const duration = byName['gen_ai.client.operation.duration'];
    expect(duration.unit).toBe('s');
    const points = duration.histogram.dataPoints;
    expect(points).toHaveLength(2); // one series without, one with error.type
    for (const p of points) expect(p.explicitBounds).toEqual([...DURATION_BUCKETS_S]);
    const okPoint = points.find((p: any) => !('error.type' in attrs(p.attributes)));
    expect(attrs(okPoint.attributes)).toEqual({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'qwen3-mini', 'gen_ai.response.model': 'qwen3-mini', 'gen_ai.prompt.name': 'homes', 'gen_ai.prompt.version': 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', 'server.address': 'llm.internal', 'server.port': 8080 });
    expect(okPoint.sum).toBeCloseTo(1.48);
    expect(Number(okPoint.count)).toBe(1);
    const errPoint = points.find((p: any) => 'error.type' in attrs(p.attributes));
    expect(attrs(errPoint.attributes)['error.type']).toBe('http_5xx');
    expect(errPoint.sum).toBeCloseTo(0.25);
    // TTFC only for the streamed run that got a chunk; one value per chunk after the first.
    expect(byName['gen_ai.client.operation.time_to_first_chunk'].histogram.dataPoints.map((p: any) => Number(p.count))).toEqual([1]);
    const chunk = byName['gen_ai.client.operation.time_per_output_chunk'].histogram.dataPoints[0];
    expect(Number(chunk.count)).toBe(3);
    expect(chunk.sum).toBeCloseTo(0.075);
    const usage = byName['gen_ai.client.token.usage'];
    expect(usage.unit).toBe('{token}');
    const usagePoints = usage.histogram.dataPoints.map((p: any) => ({ type: attrs(p.attributes)['gen_ai.token.type'], sum: p.sum, bounds: p.explicitBounds }));
    expect(usagePoints.filter((p: any) => p.type === 'output')).toEqual([{ type: 'output', sum: 54, bounds: [...TOKEN_USAGE_BUCKETS] }]);
    expect(usagePoints.filter((p: any) => p.type === 'input').reduce((s: number, p: any) => s + p.sum, 0)).toBe(2400); // both runs had 1200 input tokens
  });

  it('uses the newer gen_ai.client.inference.* names under OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental', async () => {
    const { url, received } = await receiver();
    await exportRunsOtlpHttp([telemetryRun()], { endpoint: url }, { env: { OTEL_SEMCONV_STABILITY_OPT_IN: 'http,gen_ai_latest_experimental' } });
    const names = received.filter((r) => r.path === '/v1/metrics').flatMap((r) => r.body.resourceMetrics.flatMap((rm: any) => rm.scopeMetrics.flatMap((s: any) => s.metrics.map((m: any) => m.name))));
    expect(names.sort()).toEqual(['gen_ai.client.inference.duration', 'gen_ai.client.inference.time_per_output_chunk', 'gen_ai.client.inference.time_to_first_chunk', 'gen_ai.client.token.usage']);
  });

  it('puts prompt and answer on the span only with the opt-in, with secrets scrubbed', async () => {
    const { url, received } = await receiver();
    registerSecret('sk-live-telemetry-secret-999');
    const run = telemetryRun({ answer: 'Two flats. key sk-live-telemetry-secret-999' });
    await exportRunsOtlpHttp([run], { endpoint: url }, { captureContent: true });
    const span = received.find((r) => r.path === '/v1/traces')!.body.resourceSpans[0].scopeSpans[0].spans[0];
    const a = attrs(span.attributes);
    expect(JSON.parse(a['gen_ai.input.messages'] as string)).toEqual([{ role: 'system', parts: [{ type: 'text', content: 'You list homes.' }] }, { role: 'user', parts: [{ type: 'text', content: 'Homes in Lyon?' }] }]);
    expect(JSON.parse(a['gen_ai.output.messages'] as string)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Two flats. key [REDACTED]' }], finish_reason: 'stop' }]);
    expect(JSON.stringify(received.map((r) => r.body))).not.toContain('sk-live-telemetry-secret-999');
  });

  it('reports a receiver that refuses, and one that is not there, without the headers and without hanging', async () => {
    const { url } = await receiver(500);
    process.env.OTEL_EXPORTER_OTLP_HEADERS = 'authorization=Bearer%20collector-secret-abc';
    const refused = await exportRunsOtlpHttp([telemetryRun()], { endpoint: url, timeoutMs: 2000 });
    expect(refused.errors.length).toBeGreaterThan(0);
    expect(refused.errors.join(' ')).not.toContain('collector-secret-abc');
    await new Promise((done) => server!.close(done));
    server = undefined;
    const started = Date.now();
    const absent = await exportRunsOtlpHttp([telemetryRun()], { endpoint: url, timeoutMs: 2000 });
    expect(absent.errors.length).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);
});
