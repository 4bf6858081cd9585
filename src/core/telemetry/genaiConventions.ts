/**
 * The OpenTelemetry GenAI semantic-convention names Prompt Insight writes (export) and reads (import):
 * one table, pinned to GenAI semconv v1.41.1 (status "Development"). With
 * OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental the client metrics take their newer
 * `gen_ai.client.inference.*` names (the GenAI conventions' own repository). Plain strings: no SDK is
 * loaded to read them (the importer and the hover use this file without OpenTelemetry).
 */

export const GENAI_SEMCONV_VERSION = '1.41.1';
export const SEMCONV_SCHEMA_URL = `https://opentelemetry.io/schemas/${GENAI_SEMCONV_VERSION}`;
/** Instrumentation scope of every span and metric Prompt Insight exports. */
export const INSTRUMENTATION_SCOPE = 'prompt-insight';

export const ATTR = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  /** Seconds from the request to the first streamed chunk. */
  timeToFirstChunk: 'gen_ai.response.time_to_first_chunk',
  promptName: 'gen_ai.prompt.name',
  promptVersion: 'gen_ai.prompt.version',
  /** Opt-in only: JSON of the chat messages sent / received. */
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  tokenType: 'gen_ai.token.type',
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  evaluationName: 'gen_ai.evaluation.name',
  evaluationScoreValue: 'gen_ai.evaluation.score.value',
  evaluationScoreLabel: 'gen_ai.evaluation.score.label',
  evaluationExplanation: 'gen_ai.evaluation.explanation',
} as const;

/** Prompt Insight's own attributes, outside the conventions. */
export const PI_ATTR = {
  /** Who gave a label: HUMAN, LLM or CODE (labels files). */
  labelSource: 'prompt_insight.label.source',
  /** The labels file a label came from, workspace-relative as given. */
  labelsFile: 'prompt_insight.labels.file',
  /** Stored run id (the store's record id), when the span comes from a stored run. */
  runId: 'prompt_insight.run.id',
  /** Prompt file, workspace-relative. */
  file: 'prompt_insight.prompt.file',
  /** Git revision the prompt came from ('working', 'buffer' or a commit), as stored. */
  revision: 'prompt_insight.prompt.revision',
  /** SHA-256 of the request as sent (model, messages, parameters): the content hash. */
  contentHash: 'prompt_insight.prompt.content_hash',
  /** 'cold' | 'warm' | 'unknown': how much of the prompt the server served from its prefix cache. */
  cache: 'prompt_insight.cache',
  simulated: 'prompt_insight.simulated',
  streamed: 'prompt_insight.streamed',
  testCase: 'prompt_insight.test_case',
  /** Seconds: (E2E − TTFT) / (output tokens − 1), vLLM bench serve's TPOT. */
  timePerOutputToken: 'prompt_insight.time_per_output_token',
  /** Seconds from the request to the last generated token (E2E); the span ends at stream end. */
  e2e: 'prompt_insight.e2e',
  outputTokensSource: 'prompt_insight.usage.output_tokens.source',
  inputTokensSource: 'prompt_insight.usage.input_tokens.source',
  retries: 'prompt_insight.retries',
  /** Phases the server reported, seconds, and where the split came from. */
  phaseQueue: 'prompt_insight.phase.queue',
  phasePrefill: 'prompt_insight.phase.prefill',
  phaseDecode: 'prompt_insight.phase.decode',
  phaseSource: 'prompt_insight.phase.source',
  errorMessage: 'prompt_insight.error.message',
  endpointName: 'prompt_insight.endpoint.name',
} as const;

/** Also accepted for prompt identity when importing (other platforms' names). */
export const PROMPT_NAME_ALIASES = [ATTR.promptName, 'langfuse.observation.prompt.name', 'traceloop.prompt.key'] as const;
export const PROMPT_VERSION_ALIASES = [ATTR.promptVersion, 'langfuse.observation.prompt.version', 'traceloop.prompt.version', 'llm.prompt_template.version'] as const;

export const OPERATION_CHAT = 'chat';
export const EVENT_EVALUATION_RESULT = 'gen_ai.evaluation.result';
export const TOKEN_TYPE_INPUT = 'input';
export const TOKEN_TYPE_OUTPUT = 'output';

export type SemconvMode = 'v1.41.1' | 'latest_experimental';

/** OTEL_SEMCONV_STABILITY_OPT_IN is a comma-separated list; `gen_ai_latest_experimental` picks the newer names. */
export function semconvMode(env: Record<string, string | undefined> = process.env): SemconvMode {
  const optIn = (env.OTEL_SEMCONV_STABILITY_OPT_IN ?? '').split(',').map((s) => s.trim());
  return optIn.includes('gen_ai_latest_experimental') ? 'latest_experimental' : 'v1.41.1';
}

export interface MetricNames {
  /** Seconds, request → end of the response (errors included, with error.type). */
  duration: string;
  /** Seconds, request → first chunk; streamed responses only. */
  timeToFirstChunk: string;
  /** Seconds, one value per chunk after the first: end of the previous chunk → end of this one. */
  timePerOutputChunk: string;
  /** Tokens, one value per token type (gen_ai.token.type = input | output). */
  tokenUsage: string;
}

export function metricNames(mode: SemconvMode): MetricNames {
  return mode === 'latest_experimental'
    ? { duration: 'gen_ai.client.inference.duration', timeToFirstChunk: 'gen_ai.client.inference.time_to_first_chunk', timePerOutputChunk: 'gen_ai.client.inference.time_per_output_chunk', tokenUsage: 'gen_ai.client.token.usage' }
    : { duration: 'gen_ai.client.operation.duration', timeToFirstChunk: 'gen_ai.client.operation.time_to_first_chunk', timePerOutputChunk: 'gen_ai.client.operation.time_per_output_chunk', tokenUsage: 'gen_ai.client.token.usage' };
}

/** The conventions' explicit bucket boundaries: seconds for the three client time histograms, tokens for usage. */
export const DURATION_BUCKETS_S = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92] as const;
export const TOKEN_USAGE_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864] as const;

/**
 * How Prometheus names these histograms. The JS SDK's Prometheus exporter (0.223, what Prompt Insight
 * serves) only turns dots into underscores: `gen_ai_client_operation_duration_bucket`, unit in `# UNIT`.
 * The Collector's Prometheus exporters and Prometheus' own OTLP translation append the unit:
 * `gen_ai_client_operation_duration_seconds_bucket`. Readers should try both, in this order.
 */
export function prometheusHistogramNames(metric: string, unit: 's' | '{token}'): string[] {
  const base = metric.replace(/[^a-zA-Z0-9_:]/g, '_');
  return unit === 's' ? [base, `${base}_seconds`] : [base];
}

/** Attribute → Prometheus label (dots and other characters become underscores). */
export function prometheusLabel(attribute: string): string {
  return attribute.replace(/[^a-zA-Z0-9_]/g, '_');
}
