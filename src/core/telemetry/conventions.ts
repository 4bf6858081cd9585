/**
 * The conventions applications emit for a model call, one row per source: how its model-call span is
 * recognised, where it keeps the prompt's identity, TTFT, tokens, errors and the messages sent. A new
 * source is a row here, not a new reader. Rows are tried in order; the first that recognises a span
 * reads it (so a row with a narrower recogniser comes before a broader one that the span also fits).
 * Each row names the versions it was read against (test/engine/instrumentations.engine.test.ts runs them).
 */

export type SourceId = 'ai-sdk-legacy' | 'openinference' | 'langfuse' | 'openllmetry-0.x' | 'openllmetry' | 'ai-sdk' | 'otel-openai' | 'otel-genai' | 'otel-genai-deprecated';

/** How a TTFT value is written: seconds, milliseconds, or the time of the first chunk (ISO 8601, maybe JSON-quoted). */
export type TtftUnit = 's' | 'ms' | 'timestamp';

/** Where the messages sent are kept on a span (or on log records / span events tied to it). */
export type ContentField =
  /** A JSON array of messages: GenAI `{role, parts:[{type:'text', content}]}` or `{role, content}` (string or parts). */
  | { kind: 'json-messages'; attribute: string }
  /** JSON whose `messages` holds the array, or the array itself (Langfuse's observation input). */
  | { kind: 'json-input'; attribute: string }
  /** GenAI `gen_ai.system_instructions`: a JSON array of parts, or a plain string — the system message. */
  | { kind: 'system-instructions'; attribute: string }
  /** Flattened per message: `PREFIX.N ROLE` and `PREFIX.N CONTENT`. */
  | { kind: 'indexed'; prefix: string; role: string; content: string };

/** Where the answer is kept: message fields as above (the last assistant message), or the text itself. */
export type AnswerField = ContentField | { kind: 'text'; attribute: string };

export interface ConventionRow {
  source: SourceId;
  /** How the user knows it. */
  label: string;
  /** The versions this row was checked against. */
  pinned: string;
  /**
   * The span is a model call of this source when `attribute` has one of `values` (or is present, and the span's
   * name matches); `scope` narrows it to one library's instrumentation scope (rows that share the GenAI names).
   */
  recognise: { attribute: string; values?: readonly string[]; spanName?: RegExp; scope?: RegExp };
  /** Prompt identity on the span (and its ancestors): names in order of preference, besides the shared ones. */
  promptName: readonly string[];
  promptVersion: readonly string[];
  ttft: readonly { attribute: string; unit: TtftUnit }[];
  inputTokens: readonly string[];
  outputTokens: readonly string[];
  cacheReadTokens: readonly string[];
  /** An attribute (and value) that marks a failed call besides status ERROR and error.type. */
  errorMarker?: { attribute: string; value: string };
  content: readonly ContentField[];
  /** The answer, when the source captures it (production adherence scores it). */
  answer: readonly AnswerField[];
  /** What the source leaves out, said with its numbers (e.g. no span at all for a failed call). */
  caveats?: { failedCalls?: string; ttft?: string };
}

/** Identity names every row reads, after its own: the GenAI conventions' and Prompt Insight's. */
export const SHARED_PROMPT_NAME = ['gen_ai.prompt.name'] as const;
export const SHARED_PROMPT_VERSION = ['gen_ai.prompt.version'] as const;
/**
 * Context that SDKs copy onto every span below it, under a prefix: OpenLLMetry's association properties,
 * the AI SDK's telemetry metadata and runtime context, Langfuse's metadata. `PREFIX + gen_ai.prompt.version`
 * counts as the version (what the docs' snippets set).
 */
export const PROPAGATED_PREFIXES = ['traceloop.association.properties.', 'ai.telemetry.metadata.', 'ai.settings.context.', 'langfuse.observation.metadata.', 'langfuse.trace.metadata.'] as const;
/** A SHA-256 (hex) of the system message as sent: apps that log no text can still be matched by content. */
export const SYSTEM_HASH_ATTRIBUTE = 'prompt_insight.prompt.system_sha256';

/**
 * Span events or log records (`event.name`) that carry one message each: the older GenAI conventions. A Map:
 * an event named `constructor` or `toString` is no message (a plain object's lookup found its prototype's).
 */
export const MESSAGE_EVENTS: ReadonlyMap<string, string> = new Map([
  ['gen_ai.system.message', 'system'],
  ['gen_ai.user.message', 'user'],
  ['gen_ai.assistant.message', 'assistant'],
  ['gen_ai.tool.message', 'tool'],
]);
/** Span events whose time is the first chunk's (TTFT when no attribute says it). */
export const FIRST_CHUNK_EVENTS = ['gen_ai.first_chunk', 'first_token', 'llm.first_token'] as const;
/** HTTP status attributes (current and older names): a status of 400 or more is a failed call. */
export const HTTP_STATUS_ATTRIBUTES = ['http.response.status_code', 'http.status_code'] as const;

const GENAI_TTFT = [
  { attribute: 'gen_ai.response.time_to_first_chunk', unit: 's' },
  { attribute: 'gen_ai.response.time_to_first_token', unit: 's' },
  // Metric names that SDKs also set on the span (the AI SDK's @ai-sdk/otel does).
  { attribute: 'gen_ai.client.operation.time_to_first_chunk', unit: 's' },
  { attribute: 'gen_ai.client.inference.time_to_first_chunk', unit: 's' },
  { attribute: 'gen_ai.server.time_to_first_token', unit: 's' },
] as const;
const GENAI_CONTENT: readonly ContentField[] = [
  { kind: 'system-instructions', attribute: 'gen_ai.system_instructions' },
  { kind: 'json-messages', attribute: 'gen_ai.input.messages' },
  { kind: 'indexed', prefix: 'gen_ai.prompt.', role: 'role', content: 'content' },
];
const GENAI_ANSWER: readonly AnswerField[] = [
  { kind: 'json-messages', attribute: 'gen_ai.output.messages' },
  { kind: 'indexed', prefix: 'gen_ai.completion.', role: 'role', content: 'content' },
];
/** The GenAI conventions' inference operations (embeddings, tools and agents are not model calls of a prompt). */
export const INFERENCE_OPERATIONS = ['chat', 'text_completion', 'generate_content', 'completion'] as const;

export const CONVENTIONS: readonly ConventionRow[] = [
  {
    // ai@7.0.185 with @ai-sdk/otel@1.0.185's LegacyOpenTelemetry (and ai ≤ 6's experimental_telemetry): `ai.*` names.
    // Only the provider call (doStream/doGenerate) is the model call; `ai.streamText` around it is the whole step loop.
    source: 'ai-sdk-legacy',
    label: 'Vercel AI SDK (ai.* telemetry)',
    pinned: 'ai 7.0.185 + @ai-sdk/otel 1.0.185 LegacyOpenTelemetry',
    recognise: { attribute: 'ai.operationId', values: ['ai.streamText.doStream', 'ai.generateText.doGenerate', 'ai.streamObject.doStream', 'ai.generateObject.doGenerate'] },
    promptName: [],
    promptVersion: [],
    ttft: [{ attribute: 'ai.response.msToFirstChunk', unit: 'ms' }],
    inputTokens: ['ai.usage.inputTokens', 'ai.usage.promptTokens', 'gen_ai.usage.input_tokens'],
    outputTokens: ['ai.usage.outputTokens', 'ai.usage.completionTokens', 'gen_ai.usage.output_tokens'],
    cacheReadTokens: ['ai.usage.inputTokenDetails.cacheReadTokens', 'ai.usage.cachedInputTokens'],
    content: [{ kind: 'json-messages', attribute: 'ai.prompt.messages' }],
    answer: [{ kind: 'text', attribute: 'ai.response.text' }],
  },
  {
    source: 'openinference',
    label: 'OpenInference',
    pinned: '@arizeai/openinference-instrumentation-openai 4.2.7, @arizeai/openinference-core 2.7.1',
    recognise: { attribute: 'openinference.span.kind', values: ['LLM'] },
    promptName: [],
    promptVersion: ['llm.prompt_template.version'],
    ttft: [],
    inputTokens: ['llm.token_count.prompt'],
    outputTokens: ['llm.token_count.completion'],
    cacheReadTokens: ['llm.token_count.prompt_details.cache_read'],
    content: [{ kind: 'indexed', prefix: 'llm.input_messages.', role: 'message.role', content: 'message.content' }],
    answer: [{ kind: 'indexed', prefix: 'llm.output_messages.', role: 'message.role', content: 'message.content' }],
    caveats: { ttft: 'records no TTFT', failedCalls: 'a streamed call that fails is never ended by the instrumentation, so it is never exported' },
  },
  {
    source: 'langfuse',
    label: 'Langfuse',
    pinned: '@langfuse/otel 5.11.1, @langfuse/openai 5.11.1',
    recognise: { attribute: 'langfuse.observation.type', values: ['generation'] },
    promptName: ['langfuse.observation.prompt.name'],
    promptVersion: ['langfuse.observation.prompt.version'],
    ttft: [{ attribute: 'langfuse.observation.completion_start_time', unit: 'timestamp' }],
    // langfuse.observation.usage_details is JSON ({"input":21,"output":65}): read by its keys (spanFields.ts).
    inputTokens: ['langfuse.observation.usage_details#input', 'gen_ai.usage.input_tokens'],
    outputTokens: ['langfuse.observation.usage_details#output', 'gen_ai.usage.output_tokens'],
    cacheReadTokens: ['langfuse.observation.usage_details#cache_read_input_tokens'],
    // Failures are marked with the level; OTel status stays unset.
    errorMarker: { attribute: 'langfuse.observation.level', value: 'ERROR' },
    content: [{ kind: 'json-input', attribute: 'langfuse.observation.input' }],
    answer: [{ kind: 'json-input', attribute: 'langfuse.observation.output' }],
  },
  {
    source: 'openllmetry-0.x',
    label: 'OpenLLMetry 0.x',
    pinned: '@traceloop/node-server-sdk 0.12.2',
    recognise: { attribute: 'llm.request.type', values: ['chat', 'completion'] },
    promptName: ['traceloop.prompt.key'],
    promptVersion: ['traceloop.prompt.version'],
    ttft: [],
    inputTokens: ['gen_ai.usage.prompt_tokens', 'llm.usage.prompt_tokens'],
    outputTokens: ['gen_ai.usage.completion_tokens', 'llm.usage.completion_tokens'],
    cacheReadTokens: [],
    content: [{ kind: 'indexed', prefix: 'gen_ai.prompt.', role: 'role', content: 'content' }],
    answer: [{ kind: 'indexed', prefix: 'gen_ai.completion.', role: 'role', content: 'content' }],
    caveats: { ttft: 'records no TTFT', failedCalls: 'exports no span for a failed call' },
  },
  {
    // OpenLLMetry now writes the GenAI names; its own scope tells it apart (and its caveats with it).
    source: 'openllmetry',
    label: 'OpenLLMetry',
    pinned: '@traceloop/node-server-sdk 0.27.0',
    recognise: { attribute: 'gen_ai.operation.name', values: INFERENCE_OPERATIONS, scope: /^@traceloop\// },
    promptName: ['traceloop.prompt.key'],
    promptVersion: ['traceloop.prompt.version'],
    ttft: GENAI_TTFT,
    inputTokens: ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens'],
    outputTokens: ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens'],
    cacheReadTokens: ['gen_ai.usage.cache_read.input_tokens'],
    content: GENAI_CONTENT,
    answer: GENAI_ANSWER,
    caveats: { ttft: 'records no TTFT', failedCalls: 'exports no span for a failed call' },
  },
  {
    // The AI SDK's @ai-sdk/otel: GenAI names, TTFT as the client metric's name on the `chat` span (seconds).
    source: 'ai-sdk',
    label: 'Vercel AI SDK (@ai-sdk/otel)',
    pinned: 'ai 7.0.185 + @ai-sdk/otel 1.0.185',
    recognise: { attribute: 'gen_ai.operation.name', values: INFERENCE_OPERATIONS, scope: /^gen_ai$/ },
    promptName: [],
    promptVersion: [],
    ttft: GENAI_TTFT,
    inputTokens: ['gen_ai.usage.input_tokens'],
    outputTokens: ['gen_ai.usage.output_tokens'],
    cacheReadTokens: ['gen_ai.usage.cache_read.input_tokens'],
    content: GENAI_CONTENT,
    answer: GENAI_ANSWER,
  },
  {
    // The official instrumentation of the openai client: GenAI names (gen_ai.system, deprecated, beside
    // gen_ai.operation.name), messages as log records (`event.name` gen_ai.system.message …) tied to the span.
    source: 'otel-openai',
    label: 'OpenTelemetry OpenAI instrumentation',
    pinned: '@opentelemetry/instrumentation-openai 0.22.0 (semconv 1.36)',
    recognise: { attribute: 'gen_ai.operation.name', values: INFERENCE_OPERATIONS, scope: /^@opentelemetry\/instrumentation-openai$/ },
    promptName: [],
    promptVersion: [],
    ttft: GENAI_TTFT,
    inputTokens: ['gen_ai.usage.input_tokens'],
    outputTokens: ['gen_ai.usage.output_tokens'],
    cacheReadTokens: ['gen_ai.usage.cache_read.input_tokens'],
    content: GENAI_CONTENT,
    answer: GENAI_ANSWER,
    caveats: { ttft: 'records no TTFT' },
  },
  {
    // The GenAI conventions now and their deprecated names (gen_ai.system, gen_ai.usage.prompt_tokens): Prompt
    // Insight's own export and any other GenAI instrumentation.
    source: 'otel-genai',
    label: 'OpenTelemetry GenAI',
    pinned: 'GenAI semconv 1.36–1.41',
    recognise: { attribute: 'gen_ai.operation.name', values: INFERENCE_OPERATIONS },
    promptName: ['traceloop.prompt.key', 'langfuse.observation.prompt.name'],
    promptVersion: ['traceloop.prompt.version', 'langfuse.observation.prompt.version', 'llm.prompt_template.version'],
    ttft: GENAI_TTFT,
    inputTokens: ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens'],
    outputTokens: ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens'],
    cacheReadTokens: ['gen_ai.usage.cache_read.input_tokens'],
    content: GENAI_CONTENT,
    answer: GENAI_ANSWER,
  },
  {
    // Semconv before gen_ai.operation.name (≤ 1.26): `chat MODEL` spans with gen_ai.system.
    source: 'otel-genai-deprecated',
    label: 'OpenTelemetry GenAI (before gen_ai.operation.name)',
    pinned: 'GenAI semconv 1.26',
    recognise: { attribute: 'gen_ai.system', spanName: /^(chat|text_completion|completion|generate_content)( |$)/ },
    promptName: [],
    promptVersion: [],
    ttft: GENAI_TTFT,
    inputTokens: ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens'],
    outputTokens: ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens'],
    cacheReadTokens: [],
    content: GENAI_CONTENT,
    answer: GENAI_ANSWER,
  },
];

export function conventionRow(source: SourceId): ConventionRow {
  return CONVENTIONS.find((row) => row.source === source)!;
}
