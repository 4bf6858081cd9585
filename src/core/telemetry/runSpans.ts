/**
 * One measured run → one GenAI client span (`chat {model}`), its evaluation events and the values of
 * the client metrics, as plain data (no OpenTelemetry SDK here: otelExport.ts hands these to it).
 * Names: genaiConventions.ts. Times in the conventions' unit, seconds. Every text that leaves goes
 * through scrubSecrets; prompt and answer text only when the caller opts in.
 */
import { createHash } from 'node:crypto';
import type { RunCheck } from '../adherence/runChecks';
import { scrubSecrets } from '../endpoint/secrets';
import type { StoredRun } from '../store/resultsStore';
import { ATTR, EVENT_EVALUATION_RESULT, OPERATION_CHAT, PI_ATTR } from './genaiConventions';

export type AttributeValue = string | number | boolean | string[];
export type Attributes = Record<string, AttributeValue>;

/** What a span is made from: a stored run (or one about to be stored), with what only the caller knows. */
export interface TelemetryRun {
  run: Pick<StoredRun, 'at' | 'key' | 'file' | 'prompt' | 'endpointName' | 'simulated' | 'run' | 'answer'> & Partial<Pick<StoredRun, 'id' | 'revision' | 'testCase'>>;
  /** The answer's check against the prompt's test cases (assertions, judge), when the run was checked. */
  check?: RunCheck;
  /** The chat messages sent; exported only with `captureContent`. */
  inputMessages?: readonly { role: string; content: string }[];
}

export interface EvaluationEvent {
  name: typeof EVENT_EVALUATION_RESULT;
  timeMs: number;
  attributes: Attributes;
}

export interface RunSpan {
  name: string;
  /** Unix epoch ms (fractional). */
  startMs: number;
  endMs: number;
  ok: boolean;
  /** Trace id (32 hex) and span id (16 hex) derived from the stored run's id, so re-exports are the same span. */
  ids?: { traceId: string; spanId: string };
  attributes: Attributes;
  events: EvaluationEvent[];
}

export interface RunMetricValues {
  /** Attributes every data point of this run carries (low cardinality: no run id, no file path). */
  attributes: Attributes;
  durationS: number;
  timeToFirstChunkS: number | null;
  /** One value per chunk after the first (ITL). */
  chunkGapsS: number[];
  inputTokens: number | null;
  outputTokens: number | null;
}

export interface SpanOptions {
  /** Put the prompt and the answer on the span (gen_ai.input.messages / gen_ai.output.messages). */
  captureContent?: boolean;
}

const MAX_TEXT_ATTRIBUTE_CHARS = 4096;
const MAX_CONTENT_CHARS = 100_000;

/** `gen_ai.provider.name` well-known values for our provider kinds; unknown kinds are passed as written. */
const PROVIDER_NAMES: Record<string, string> = { openai: 'openai', azure: 'azure.ai.openai', anthropic: 'anthropic', ollama: 'ollama', 'vscode-lm': 'vscode.lm' };

export function runSpan(input: TelemetryRun, options: SpanOptions = {}): RunSpan {
  const { run: stored, check } = input;
  const record = stored.run;
  // A record edited by hand can hold any time: the span stays well-formed (ends now, lasts 0 s) rather than throwing.
  const parsedEnd = Date.parse(stored.at);
  const endMs = Number.isFinite(parsedEnd) ? parsedEnd : Date.now();
  const durationMs = Number.isFinite(record.streamEndMs) && record.streamEndMs > 0 ? Math.min(record.streamEndMs, endMs) : 0;
  const startMs = endMs - durationMs;
  const model = stored.key.model;
  const server = serverOf(stored.key.endpoint);
  const attributes: Attributes = {
    [ATTR.operationName]: OPERATION_CHAT,
    [ATTR.providerName]: providerName(stored.key.endpoint),
    [ATTR.requestModel]: model,
    [ATTR.promptName]: stored.prompt,
    [ATTR.promptVersion]: promptVersion(stored),
    [PI_ATTR.file]: stored.file,
    [PI_ATTR.contentHash]: stored.key.promptHash,
    [PI_ATTR.endpointName]: scrubSecrets(stored.endpointName),
    [PI_ATTR.simulated]: stored.simulated,
    [PI_ATTR.streamed]: record.streamed,
    [PI_ATTR.retries]: record.retries,
  };
  if (stored.id) attributes[PI_ATTR.runId] = stored.id;
  if (stored.revision) attributes[PI_ATTR.revision] = stored.revision;
  if (stored.testCase !== undefined) attributes[PI_ATTR.testCase] = stored.testCase;
  if (server) {
    attributes[ATTR.serverAddress] = server.address;
    attributes[ATTR.serverPort] = server.port;
  }
  // The conventions name the model that answered; our runs ask for one model and record no other.
  if (record.ok) attributes[ATTR.responseModel] = model;
  if (record.finishReason) attributes[ATTR.finishReasons] = [record.finishReason];
  // On the span only: an id per request would make every metric series its own.
  if (record.responseId) attributes[ATTR.responseId] = record.responseId;
  if (record.inputTokens !== null) attributes[ATTR.inputTokens] = record.inputTokens;
  if (record.outputTokens !== null) attributes[ATTR.outputTokens] = record.outputTokens;
  if (record.inputTokensSource) attributes[PI_ATTR.inputTokensSource] = record.inputTokensSource;
  if (record.outputTokensSource) attributes[PI_ATTR.outputTokensSource] = record.outputTokensSource;
  if (typeof record.cachedInputTokens === 'number') attributes[ATTR.cacheReadInputTokens] = record.cachedInputTokens;
  if (record.ttftMs !== null) attributes[ATTR.timeToFirstChunk] = seconds(record.ttftMs);
  if (record.e2eMs !== null) attributes[PI_ATTR.e2e] = seconds(record.e2eMs);
  if (record.tpotMs !== null) attributes[PI_ATTR.timePerOutputToken] = seconds(record.tpotMs);
  if (record.cache) attributes[PI_ATTR.cache] = record.cache;
  if (record.phases) {
    if (record.phases.queueMs !== null) attributes[PI_ATTR.phaseQueue] = seconds(record.phases.queueMs);
    attributes[PI_ATTR.phasePrefill] = seconds(record.phases.prefillMs);
    if (record.phases.decodeMs !== null) attributes[PI_ATTR.phaseDecode] = seconds(record.phases.decodeMs);
    attributes[PI_ATTR.phaseSource] = record.phases.source;
  }
  if (!record.ok) {
    attributes[ATTR.errorType] = record.error?.kind ?? '_OTHER';
    if (record.error?.message) attributes[PI_ATTR.errorMessage] = boundedText(record.error.message);
  }
  if (options.captureContent) {
    if (input.inputMessages) attributes[ATTR.inputMessages] = boundedContent(JSON.stringify(input.inputMessages.map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] }))));
    if (record.ok || stored.answer) attributes[ATTR.outputMessages] = boundedContent(JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: stored.answer }], finish_reason: record.finishReason ?? 'stop' }]));
  }
  return {
    name: `${OPERATION_CHAT} ${model}`,
    startMs,
    endMs,
    ok: record.ok,
    ...(stored.id ? { ids: idsOf(stored.id) } : {}),
    attributes,
    events: check ? evaluationEvents(check, endMs, options.captureContent === true) : [],
  };
}

/** The metric values of one run, with the attributes the conventions put on client metrics (plus the prompt's identity). */
export function runMetricValues(input: TelemetryRun): RunMetricValues {
  const { run: stored } = input;
  const record = stored.run;
  const server = serverOf(stored.key.endpoint);
  const attributes: Attributes = {
    [ATTR.operationName]: OPERATION_CHAT,
    [ATTR.providerName]: providerName(stored.key.endpoint),
    [ATTR.requestModel]: stored.key.model,
    // Outside the conventions' metric attributes, but what production views group by (bounded: one per version).
    [ATTR.promptName]: stored.prompt,
    [ATTR.promptVersion]: promptVersion(stored),
  };
  if (record.ok) attributes[ATTR.responseModel] = stored.key.model;
  if (server) {
    attributes[ATTR.serverAddress] = server.address;
    attributes[ATTR.serverPort] = server.port;
  }
  if (!record.ok) attributes[ATTR.errorType] = record.error?.kind ?? '_OTHER';
  return {
    attributes,
    durationS: seconds(record.e2eMs ?? record.streamEndMs),
    // "SHOULD be reported for streaming calls and SHOULD NOT be reported otherwise."
    timeToFirstChunkS: record.streamed && record.ttftMs !== null ? seconds(record.ttftMs) : null,
    chunkGapsS: record.streamed ? record.itlMs.map(seconds) : [],
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
  };
}

/**
 * `gen_ai.prompt.version`: the git commit the prompt came from when it is one, else `sha256:` and the first
 * 16 hex digits of the content hash of the messages sent (uncommitted text, a buffer, a CLI run).
 */
export function promptVersion(stored: Pick<StoredRun, 'key'> & { revision?: string }): string {
  if (stored.revision && /^[0-9a-f]{7,64}$/i.test(stored.revision)) return stored.revision.toLowerCase();
  return `sha256:${stored.key.promptHash.slice(0, 16)}`;
}

/**
 * One event for the run's verdict on its test cases, and one per assertion that did not pass. A reason
 * is written from the answer (`the answer is "…", not "…"`, a judge's quoted reply, a server's error
 * text), so it is answer text: the explanation carries it only when content capture is on; otherwise it
 * names what did not pass, by the assertions' labels (the tests file's words), and each event its outcome.
 */
function evaluationEvents(check: RunCheck, timeMs: number, captureContent: boolean): EvaluationEvent[] {
  const verdict: Attributes = {
    [ATTR.evaluationName]: check.caseName ? `test case: ${check.caseName}` : 'test cases',
    [ATTR.evaluationScoreLabel]: check.status,
  };
  if (check.status !== 'unscored') verdict[ATTR.evaluationScoreValue] = check.status === 'pass' ? 1 : 0;
  const why = captureContent
    ? check.reason ?? (check.failed.length ? check.failed.map((f) => `${f.label}: ${f.reason}`).join('; ') : undefined)
    : check.failed.length ? `did not pass: ${check.failed.map((f) => `${f.label} (${f.outcome})`).join('; ')}` : undefined;
  if (why) verdict[ATTR.evaluationExplanation] = boundedText(why);
  const events: EvaluationEvent[] = [{ name: EVENT_EVALUATION_RESULT, timeMs, attributes: verdict }];
  for (const failed of check.failed) {
    const attributes: Attributes = { [ATTR.evaluationName]: boundedText(failed.label), [ATTR.evaluationScoreLabel]: failed.outcome };
    if (captureContent) attributes[ATTR.evaluationExplanation] = boundedText(failed.reason);
    if (failed.outcome === 'fail') attributes[ATTR.evaluationScoreValue] = 0;
    events.push({ name: EVENT_EVALUATION_RESULT, timeMs, attributes });
  }
  return events;
}

/** The stored key's endpoint is `provider URL` (credentials, query and fragment already removed). */
function providerName(endpoint: string): string {
  const kind = endpoint.split(' ', 1)[0] ?? '';
  return PROVIDER_NAMES[kind] ?? (kind || '_OTHER');
}

function serverOf(endpoint: string): { address: string; port: number } | undefined {
  const url = endpoint.slice(endpoint.indexOf(' ') + 1);
  try {
    const parsed = new URL(url);
    if (!parsed.hostname) return undefined;
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : undefined;
    return port === undefined ? undefined : { address: parsed.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return undefined;
  }
}

/** Trace id: the run id's 128 bits (a UUID); span id: 64 bits of its SHA-256. Non-UUID ids are hashed for both. */
function idsOf(runId: string): { traceId: string; spanId: string } {
  const hex = runId.replace(/-/g, '').toLowerCase();
  const digest = createHash('sha256').update(runId, 'utf8').digest('hex');
  const traceId = /^[0-9a-f]{32}$/.test(hex) && !/^0+$/.test(hex) ? hex : digest.slice(0, 32);
  return { traceId, spanId: digest.slice(32, 48) };
}

function seconds(ms: number): number {
  return ms / 1000;
}

function boundedText(text: string): string {
  const scrubbed = scrubSecrets(text);
  return scrubbed.length > MAX_TEXT_ATTRIBUTE_CHARS ? `${scrubbed.slice(0, MAX_TEXT_ATTRIBUTE_CHARS)}…` : scrubbed;
}

function boundedContent(json: string): string {
  const scrubbed = scrubSecrets(json);
  // Cut text is no longer JSON; say so rather than send a broken document.
  return scrubbed.length > MAX_CONTENT_CHARS ? JSON.stringify([{ role: 'system', parts: [{ type: 'text', content: `[${scrubbed.length} characters, over the ${MAX_CONTENT_CHARS} exported]` }] }]) : scrubbed;
}
