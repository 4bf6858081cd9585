/**
 * Runs → OpenTelemetry, through the official JS SDK (no hand-written OTLP encoder): spans with their
 * evaluation events, and the GenAI client histograms. Three destinations: OTLP/HTTP (a collector or
 * backend), OTLP JSON Lines (the Collector file exporter's format) and a Prometheus scrape endpoint.
 * This module is heavy: faces load it only when telemetry is on (loadTelemetry.ts, dist/telemetry.js).
 */
import { diag, SpanKind, SpanStatusCode, type Attributes as OtelAttributes, type Histogram, type Meter } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, RandomIdGenerator, SimpleSpanProcessor, type IdGenerator, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { scrubSecrets } from '../endpoint/secrets';
import { DURATION_BUCKETS_S, INSTRUMENTATION_SCOPE, metricNames, SEMCONV_SCHEMA_URL, semconvMode, TOKEN_TYPE_INPUT, TOKEN_TYPE_OUTPUT, TOKEN_USAGE_BUCKETS, ATTR, EVENT_EVALUATION_RESULT, PI_ATTR } from './genaiConventions';
import type { Label } from '../adherence/labelsFile';
import { runMetricValues, runSpan, type RunSpan, type SpanOptions, type TelemetryRun } from './runSpans';
import { retrievalSpan } from './retrievalSpan';

export interface TelemetryOptions extends SpanOptions {
  /** Environment to read OTEL_* variables from (tests pass their own). */
  env?: Record<string, string | undefined>;
  /** Version written as service.version and the instrumentation scope's version. */
  version?: string;
}

/** Lets a span take the ids its run determines (re-exporting a stored run gives the same span). */
class RunIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  next: RunSpan['ids'];
  generateTraceId(): string {
    return this.next?.traceId ?? this.random.generateTraceId();
  }
  generateSpanId(): string {
    return this.next?.spanId ?? this.random.generateSpanId();
  }
}

function resourceOf(options: TelemetryOptions): Resource {
  const env = options.env ?? process.env;
  return resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'prompt-insight', ...(options.version ? { 'service.version': options.version } : {}) });
}

/** Records runs as spans on a tracer of `provider`. */
function recordSpans(provider: BasicTracerProvider, ids: RunIdGenerator, runs: readonly TelemetryRun[], options: TelemetryOptions): void {
  const tracer = provider.getTracer(INSTRUMENTATION_SCOPE, options.version, { schemaUrl: SEMCONV_SCHEMA_URL });
  for (const input of runs) {
    const span = runSpan(input, options);
    ids.next = span.ids;
    const otelSpan = tracer.startSpan(span.name, { kind: SpanKind.CLIENT, startTime: span.startMs, attributes: span.attributes as OtelAttributes, root: true });
    ids.next = undefined;
    for (const event of span.events) otelSpan.addEvent(event.name, event.attributes as OtelAttributes, event.timeMs);
    if (!span.ok) otelSpan.setStatus({ code: SpanStatusCode.ERROR, message: String(span.attributes[ATTR.errorType] ?? '') });
    otelSpan.end(span.endMs);
    // A RAG run: its retrieval step beside the inference span, in the same trace (retrievalSpan.ts).
    const retrieval = retrievalSpan(input, span);
    if (retrieval) {
      // A sibling, not a child: the step ends before the model call starts (same trace, no parent).
      ids.next = { traceId: otelSpan.spanContext().traceId, spanId: retrieval.ids?.spanId ?? new RandomIdGenerator().generateSpanId() };
      const step = tracer.startSpan(retrieval.name, { kind: SpanKind.CLIENT, startTime: retrieval.startMs, attributes: retrieval.attributes as OtelAttributes, root: true });
      ids.next = undefined;
      if (!retrieval.ok) step.setStatus({ code: SpanStatusCode.ERROR, message: String(retrieval.attributes[ATTR.errorType] ?? '') });
      step.end(retrieval.endMs);
    }
  }
}

interface ClientHistograms {
  duration: Histogram;
  timeToFirstChunk: Histogram;
  timePerOutputChunk: Histogram;
  tokenUsage: Histogram;
}

function clientHistograms(meter: Meter, env: Record<string, string | undefined>): ClientHistograms {
  const names = metricNames(semconvMode(env));
  const seconds = { unit: 's', advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_S] } };
  return {
    duration: meter.createHistogram(names.duration, { ...seconds, description: 'GenAI operation duration.' }),
    timeToFirstChunk: meter.createHistogram(names.timeToFirstChunk, { ...seconds, description: 'Time from the request to the first chunk of a streamed response.' }),
    timePerOutputChunk: meter.createHistogram(names.timePerOutputChunk, { ...seconds, description: 'Time per output chunk after the first: end of the previous chunk to end of this one.' }),
    tokenUsage: meter.createHistogram(names.tokenUsage, { unit: '{token}', description: 'Number of input and output tokens used.', advice: { explicitBucketBoundaries: [...TOKEN_USAGE_BUCKETS] } }),
  };
}

/** Records every run's values in the GenAI client histograms. */
export function recordRunMetrics(meter: Meter, runs: readonly TelemetryRun[], env: Record<string, string | undefined> = process.env): void {
  const h = clientHistograms(meter, env);
  for (const input of runs) {
    const values = runMetricValues(input);
    const attributes = values.attributes as OtelAttributes;
    h.duration.record(values.durationS, attributes);
    if (values.timeToFirstChunkS !== null) h.timeToFirstChunk.record(values.timeToFirstChunkS, attributes);
    for (const gap of values.chunkGapsS) h.timePerOutputChunk.record(gap, attributes);
    if (values.inputTokens !== null) h.tokenUsage.record(values.inputTokens, { ...attributes, [ATTR.tokenType]: TOKEN_TYPE_INPUT });
    if (values.outputTokens !== null) h.tokenUsage.record(values.outputTokens, { ...attributes, [ATTR.tokenType]: TOKEN_TYPE_OUTPUT });
  }
}

// ---- OTLP/HTTP ----------------------------------------------------------------------------------

export interface OtlpHttpTarget {
  /** Base URL (as OTEL_EXPORTER_OTLP_ENDPOINT): traces go to URL/v1/traces, metrics to URL/v1/metrics. */
  endpoint: string;
  timeoutMs?: number;
}

export interface OtlpExportOutcome {
  spans: number;
  /** Failed exports, with what the exporter said (scrubbed; headers are never part of it). */
  errors: string[];
}

/** Remembers whether each export succeeded: the SDK's processors and readers only log failures. */
class ResultWatch {
  readonly errors: string[] = [];
  note(kind: string, result: ExportResult): void {
    if (result.code !== ExportResultCode.SUCCESS) this.errors.push(`${kind}: ${scrubSecrets(result.error?.message ?? 'export failed')}`);
  }
}

function watchedSpanExporter(inner: SpanExporter, watch: ResultWatch): SpanExporter {
  return {
    export: (spans, done) => inner.export(spans, (result) => (watch.note('traces', result), done(result))),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

function watchedMetricExporter(inner: OTLPMetricExporter, watch: ResultWatch): PushMetricExporter {
  return {
    export: (metrics: ResourceMetrics, done: (result: ExportResult) => void) => inner.export(metrics, (result) => (watch.note('metrics', result), done(result))),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush(),
    selectAggregationTemporality: (type) => inner.selectAggregationTemporality(type),
  };
}

/**
 * Sends runs to an OTLP/HTTP receiver (JSON encoding) and waits until both signals were sent. Headers
 * come only from OTEL_EXPORTER_OTLP_HEADERS / _TRACES_HEADERS / _METRICS_HEADERS, which the SDK reads.
 */
export async function exportRunsOtlpHttp(runs: readonly TelemetryRun[], target: OtlpHttpTarget, options: TelemetryOptions = {}): Promise<OtlpExportOutcome> {
  const env = options.env ?? process.env;
  const base = target.endpoint.replace(/\/+$/, '');
  const timeoutMillis = target.timeoutMs ?? 10_000;
  const watch = new ResultWatch();
  // The SDK's own logger would print failures to the console; they are reported once, by the caller.
  diag.disable();
  const traceExporter = new OTLPTraceExporter({ url: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${base}/v1/traces`, timeoutMillis });
  const ids = new RunIdGenerator();
  const tracerProvider = new BasicTracerProvider({ resource: resourceOf(options), idGenerator: ids, spanProcessors: [new BatchSpanProcessor(watchedSpanExporter(traceExporter, watch), { maxQueueSize: Math.max(2048, runs.length), maxExportBatchSize: 512 })] });
  const metricExporter = new OTLPMetricExporter({ url: env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT || `${base}/v1/metrics`, timeoutMillis });
  const reader = new PeriodicExportingMetricReader({ exporter: watchedMetricExporter(metricExporter, watch), exportIntervalMillis: 3_600_000, exportTimeoutMillis: timeoutMillis });
  const meterProvider = new MeterProvider({ resource: resourceOf(options), readers: [reader] });
  try {
    recordSpans(tracerProvider, ids, runs, options);
    recordRunMetrics(meterProvider.getMeter(INSTRUMENTATION_SCOPE, options.version, { schemaUrl: SEMCONV_SCHEMA_URL }), runs, env);
  } finally {
    // Shutting down sends what is pending once (a flush before it would send the cumulative histograms twice).
    for (const settled of await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()])) {
      if (settled.status === 'rejected') watch.errors.push(scrubSecrets((settled.reason as Error)?.message ?? String(settled.reason)));
    }
  }
  return { spans: runs.length, errors: [...new Set(watch.errors)] };
}

// ---- OTLP JSON Lines ----------------------------------------------------------------------------

/**
 * One OTLP JSON `TracesData` line per run (the Collector file exporter's format): hex ids, lowerCamelCase
 * keys, integer enums, int64 as decimal strings. The SDK's JSON serializer writes integer attribute
 * values as JSON numbers; the proto3 JSON mapping writes int64 as strings, so those are turned into strings.
 */
export function* otlpJsonLines(runs: Iterable<TelemetryRun>, options: TelemetryOptions = {}): Generator<string> {
  const memory = new InMemorySpanExporter();
  const ids = new RunIdGenerator();
  const provider = new BasicTracerProvider({ resource: resourceOf(options), idGenerator: ids, spanProcessors: [new SimpleSpanProcessor(memory)] });
  for (const run of runs) {
    recordSpans(provider, ids, [run], options);
    const spans: ReadableSpan[] = memory.getFinishedSpans();
    memory.reset();
    const request = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))) as unknown;
    yield JSON.stringify(int64AsStrings(request));
  }
  void provider.shutdown();
}

/**
 * People's labels (a labels file) as OTLP JSON `TracesData` lines: per label an `evaluate CHECK` span at
 * the label's time carrying one `gen_ai.evaluation.result` event — the check's name, the label as
 * `score.label` (and `score.value` 1/0 for pass/fail, or the number), who gave it (HUMAN, LLM, CODE). The
 * comment (people's words) and the author only with content capture on, as answers are.
 */
export function* labelsOtlpJsonLines(labels: Iterable<Label>, labelsFile: string, options: TelemetryOptions = {}): Generator<string> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceOf(options), spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer(INSTRUMENTATION_SCOPE, options.version, { schemaUrl: SEMCONV_SCHEMA_URL });
  for (const label of labels) {
    const at = Date.parse(label.time);
    const result: OtelAttributes = { [ATTR.evaluationName]: label.check, [ATTR.evaluationScoreLabel]: String(label.label), [PI_ATTR.labelSource]: label.source };
    if (typeof label.label === 'number') result[ATTR.evaluationScoreValue] = label.label;
    else if (label.label === 'pass' || label.label === 'fail') result[ATTR.evaluationScoreValue] = label.label === 'pass' ? 1 : 0;
    if (options.captureContent && label.comment) result[ATTR.evaluationExplanation] = label.comment;
    const span = tracer.startSpan(`evaluate ${label.check}`, { kind: SpanKind.INTERNAL, startTime: at, root: true, attributes: { [ATTR.evaluationName]: label.check, [PI_ATTR.labelsFile]: labelsFile, ...(options.captureContent ? { 'user.name': label.author } : {}) } });
    span.addEvent(EVENT_EVALUATION_RESULT, result, at);
    span.end(at);
    const spans: ReadableSpan[] = memory.getFinishedSpans();
    memory.reset();
    yield JSON.stringify(int64AsStrings(JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))) as unknown));
  }
  void provider.shutdown();
}

function int64AsStrings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(int64AsStrings);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = key === 'intValue' && typeof inner === 'number' ? String(inner) : int64AsStrings(inner);
    return out;
  }
  return value;
}

// ---- Prometheus ---------------------------------------------------------------------------------

export interface PrometheusEndpoint {
  /** http://host:port/metrics */
  url: string;
  /** Records more runs in the same histograms. */
  record(runs: readonly TelemetryRun[]): void;
  close(): Promise<void>;
}

/** Serves the runs' GenAI client histograms for a Prometheus server to scrape (Prometheus has no OTLP ingestion here). */
export async function servePrometheusMetrics(runs: readonly TelemetryRun[], listen: { host?: string; port: number }, options: TelemetryOptions = {}): Promise<PrometheusEndpoint> {
  const host = listen.host ?? '127.0.0.1';
  const exporter = new PrometheusExporter({ host, port: listen.port, preventServerStart: true });
  const meterProvider = new MeterProvider({ resource: resourceOf(options), readers: [exporter] });
  const meter = meterProvider.getMeter(INSTRUMENTATION_SCOPE, options.version, { schemaUrl: SEMCONV_SCHEMA_URL });
  const env = options.env ?? process.env;
  // One set of instruments: creating them again would give the same instruments (the SDK deduplicates by name).
  recordRunMetrics(meter, runs, env);
  await exporter.startServer();
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${listen.port}/metrics`,
    record: (more) => recordRunMetrics(meter, more, env),
    close: async () => {
      await exporter.stopServer();
      await meterProvider.shutdown();
    },
  };
}
