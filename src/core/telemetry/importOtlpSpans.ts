/**
 * One OTLP JSON `TracesData` object (a line of the Collector's file exporter) → the GenAI inference
 * spans in it, reduced to what production numbers need. Everything else (other spans, unknown
 * attributes, prompt and answer text) is passed over; a span that cannot be trusted is skipped
 * with a reason, never thrown on.
 *
 * OTLP JSON mapping: lowerCamelCase keys, trace/span ids as hex (some exporters send base64), int64
 * as decimal strings (numbers accepted), `status.code` 2 = ERROR.
 */
import type { JsonLineRefusal } from './importLines';
import { ATTR, PI_ATTR, PROMPT_NAME_ALIASES, PROMPT_VERSION_ALIASES } from './genaiConventions';

/** Inference operations of the GenAI conventions (embeddings, tools and agents are not prompt calls). */
export const INFERENCE_OPERATIONS: ReadonlySet<string> = new Set(['chat', 'text_completion', 'generate_content', 'completion']);

/** TTFT attribute names, conventions first (`time_to_first_token` is used by some SDKs, e.g. Sentry's). */
const TTFT_ATTRIBUTES = [ATTR.timeToFirstChunk, 'gen_ai.response.time_to_first_token'] as const;

/** A span longer than a day is not an inference call: a broken clock or a unit mistake. */
export const MAX_PLAUSIBLE_DURATION_S = 24 * 3600;
/** Prompt names and versions are identifiers; anything longer is not one (and is not kept in memory). */
export const MAX_IDENTITY_CHARS = 256;

export interface ImportedSpan {
  promptName: string | null;
  promptVersion: string;
  /** Unix ms of the span's start and end. */
  startMs: number;
  endMs: number;
  e2eMs: number;
  ttftMs: number | null;
  /** (E2E − TTFT) / (output tokens − 1), or the span's own `prompt_insight.time_per_output_token`. */
  tpotMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  /** `error.type`, or `_OTHER` for a span with status ERROR and no type; null = success. */
  errorType: string | null;
  /** The span's trace and span ids in hex (provenance for sampled production cases). */
  traceId?: string;
  spanId?: string;
  /** `gen_ai.input.messages` as captured (JSON text), when the application recorded it; others keep no text. */
  inputMessages?: string;
}

export type SkipReason =
  | JsonLineRefusal
  | 'not-traces-data'
  | 'corrupt-gzip'
  | 'bad-span'
  | 'bad-id'
  | 'bad-timestamps'
  | 'absurd-duration'
  | 'identity-too-long'
  | 'no-prompt-version'
  | 'absurd-ttft'
  | 'absurd-tokens';

export interface SpanSink {
  span(span: ImportedSpan): void;
  skip(reason: SkipReason): void;
  /** A span that is not a GenAI inference call (counted, not an error). */
  other(): void;
}

type AnyValue = { stringValue?: unknown; intValue?: unknown; doubleValue?: unknown; boolValue?: unknown; arrayValue?: unknown };

/** Reads the spans of one parsed `TracesData` object into the sink. */
export function collectSpans(data: unknown, sink: SpanSink): void {
  const resourceSpans = isObject(data) ? data.resourceSpans : undefined;
  if (!Array.isArray(resourceSpans)) {
    sink.skip('not-traces-data');
    return;
  }
  for (const rs of resourceSpans) {
    // `instrumentationLibrarySpans`: the name before OTLP 0.15 (files from older Collectors).
    const scopeSpans = isObject(rs) ? (rs.scopeSpans ?? rs.instrumentationLibrarySpans) : undefined;
    if (!Array.isArray(scopeSpans)) continue;
    for (const ss of scopeSpans) {
      const spans = isObject(ss) ? ss.spans : undefined;
      if (!Array.isArray(spans)) continue;
      for (const span of spans) readSpan(span, sink);
    }
  }
}

function readSpan(raw: unknown, sink: SpanSink): void {
  if (!isObject(raw)) return sink.skip('bad-span');
  const attributes = attributeMap(raw.attributes);
  const operation = attributes.get(ATTR.operationName);
  if (typeof operation !== 'string' || !INFERENCE_OPERATIONS.has(operation)) return sink.other();
  if (!validId(raw.traceId, 16) || !validId(raw.spanId, 8)) return sink.skip('bad-id');
  const start = nanosToMs(raw.startTimeUnixNano);
  const end = nanosToMs(raw.endTimeUnixNano);
  if (start === null || end === null) return sink.skip('bad-timestamps');
  const spanMs = end - start;
  if (!(spanMs >= 0) || spanMs > MAX_PLAUSIBLE_DURATION_S * 1000) return sink.skip('absurd-duration');
  // E2E is the span's duration, unless the span says when the last token came (Prompt Insight's own
  // spans end at stream end, after the usage chunk): that is vLLM's E2EL.
  const ownE2e = numberOf(attributes.get(PI_ATTR.e2e));
  const e2eMs = ownE2e !== null && ownE2e >= 0 && ownE2e * 1000 <= spanMs + 1 ? ownE2e * 1000 : spanMs;

  const promptName = firstString(attributes, PROMPT_NAME_ALIASES);
  const promptVersion = firstString(attributes, PROMPT_VERSION_ALIASES);
  if ((promptName?.length ?? 0) > MAX_IDENTITY_CHARS || (promptVersion?.length ?? 0) > MAX_IDENTITY_CHARS) return sink.skip('identity-too-long');
  if (!promptVersion) return sink.skip('no-prompt-version');

  let ttftMs: number | null = null;
  const ttftS = firstNumber(attributes, TTFT_ATTRIBUTES);
  if (ttftS !== null) {
    // TTFT cannot be negative or later than the end of the response.
    if (!(ttftS >= 0) || ttftS * 1000 > e2eMs + 1) return sink.skip('absurd-ttft');
    ttftMs = ttftS * 1000;
  }
  const inputTokens = tokenCount(attributes.get(ATTR.inputTokens));
  const outputTokens = tokenCount(attributes.get(ATTR.outputTokens));
  const cacheReadTokens = tokenCount(attributes.get(ATTR.cacheReadInputTokens));
  if (inputTokens === undefined || outputTokens === undefined || cacheReadTokens === undefined) return sink.skip('absurd-tokens');

  let tpotMs: number | null = null;
  const ownTpot = numberOf(attributes.get(PI_ATTR.timePerOutputToken));
  if (ownTpot !== null && ownTpot >= 0 && ownTpot * 1000 <= e2eMs) tpotMs = ownTpot * 1000;
  else if (ttftMs !== null && outputTokens !== null && outputTokens > 1) tpotMs = (e2eMs - ttftMs) / (outputTokens - 1);

  const errorAttr = attributes.get(ATTR.errorType);
  const statusCode = isObject(raw.status) ? Number(raw.status.code) : 0;
  const errorType = typeof errorAttr === 'string' && errorAttr !== '' ? errorAttr.slice(0, MAX_IDENTITY_CHARS) : statusCode === 2 ? '_OTHER' : null;

  const inputMessages = attributes.get(ATTR.inputMessages);
  sink.span({ promptName, promptVersion, startMs: start, endMs: end, e2eMs, ttftMs, tpotMs, inputTokens, outputTokens, cacheReadTokens, errorType, traceId: hexId(raw.traceId as string, 16), spanId: hexId(raw.spanId as string, 8), ...(typeof inputMessages === 'string' && inputMessages !== '' ? { inputMessages } : {}) });
}

/** Attribute list → map of plain values (arrays are not needed by the importer and are left out). */
function attributeMap(list: unknown): Map<string, string | number | boolean> {
  const map = new Map<string, string | number | boolean>();
  if (!Array.isArray(list)) return map;
  for (const kv of list) {
    if (!isObject(kv) || typeof kv.key !== 'string' || !isObject(kv.value)) continue;
    const v = kv.value as AnyValue;
    if (typeof v.stringValue === 'string') map.set(kv.key, v.stringValue);
    else if (v.intValue !== undefined) {
      const n = Number(v.intValue);
      if (Number.isFinite(n)) map.set(kv.key, n);
    } else if (typeof v.doubleValue === 'number' || typeof v.doubleValue === 'string') {
      const n = Number(v.doubleValue);
      if (Number.isFinite(n)) map.set(kv.key, n);
    } else if (typeof v.boolValue === 'boolean') map.set(kv.key, v.boolValue);
  }
  return map;
}

function firstString(attributes: Map<string, unknown>, names: readonly string[]): string | null {
  for (const name of names) {
    const value = attributes.get(name);
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (typeof value === 'number') return String(value);
  }
  return null;
}

function firstNumber(attributes: Map<string, unknown>, names: readonly string[]): number | null {
  for (const name of names) {
    const n = numberOf(attributes.get(name));
    if (n !== null) return n;
  }
  return null;
}

function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** null = absent; undefined = present but not a plausible count (negative, fractional, beyond 2^40). */
function tokenCount(value: unknown): number | null | undefined {
  if (value === undefined) return null;
  const n = numberOf(value);
  if (n === null || n < 0 || !Number.isInteger(n) || n > 2 ** 40) return undefined;
  return n;
}

/** Unix nanoseconds (decimal string or number) → ms; null when missing, not a number or before 1970. */
function nanosToMs(value: unknown): number | null {
  let n: number;
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) n = Number(value);
  else if (typeof value === 'number' && Number.isFinite(value)) n = value;
  else return null;
  if (n <= 0) return null;
  return n / 1e6;
}

const HEX_ID = /^[0-9a-fA-F]+$/;

/** A valid id (validId) in lowercase hex. */
function hexId(value: string, bytes: number): string {
  return value.length === bytes * 2 && HEX_ID.test(value) ? value.toLowerCase() : Buffer.from(value, 'base64').toString('hex');
}
const BASE64_ID = /^[A-Za-z0-9+/]+={0,2}$/;

/** A trace (16 bytes) or span (8 bytes) id in hex, or in base64 as some exporters write it; all zeros is invalid. */
export function validId(value: unknown, bytes: number): boolean {
  if (typeof value !== 'string') return false;
  let decoded: Buffer;
  if (value.length === bytes * 2 && HEX_ID.test(value)) decoded = Buffer.from(value, 'hex');
  else if (value.length === Math.ceil(bytes / 3) * 4 && BASE64_ID.test(value)) decoded = Buffer.from(value, 'base64');
  else return false;
  return decoded.length === bytes && decoded.some((b) => b !== 0);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
