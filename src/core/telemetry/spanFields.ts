/**
 * One OTLP JSON span read through the conventions table (conventions.ts): which row recognises it as a
 * model call, and what that row says about its identity, TTFT, tokens, error and messages. A span that
 * cannot be trusted gives a skip reason, never an exception. Spans that are not model calls still give
 * their identity and parent, for the model calls below them (traceJoin.ts).
 */
import { PI_ATTR } from './genaiConventions';
import { capturedAnswer, capturedMessages, MAX_CAPTURED_CHARS, type CapturedMessage } from './capturedContent';
import { CONVENTIONS, FIRST_CHUNK_EVENTS, HTTP_STATUS_ATTRIBUTES, MESSAGE_EVENTS, PROPAGATED_PREFIXES, SHARED_PROMPT_NAME, SHARED_PROMPT_VERSION, SYSTEM_HASH_ATTRIBUTE, type ConventionRow, type SourceId } from './conventions';
import { attributeMap, firstNumber, firstString, hexId, isObject, nanosToMs, numberOf, tokenCount, validId, type AttributeMap } from './otlpValues';
import type { SkipReason } from './skipReasons';

/** A span longer than a day is not a model call: a broken clock or a unit mistake. */
export const MAX_PLAUSIBLE_DURATION_S = 24 * 3600;
/** Prompt names and versions are identifiers; anything longer is not one (and is not kept in memory). */
export const MAX_IDENTITY_CHARS = 256;

export interface Identity {
  name: string | null;
  version: string | null;
}

/** What a model call measured, as production figures count it. */
export interface CallFigures {
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
  /** `error.type`; else for a failed call the HTTP status, the exception's type or `_OTHER`; null = success. */
  errorType: string | null;
}

export interface ModelCall extends CallFigures {
  source: SourceId;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  /** Identity on the span itself. */
  own: Identity;
  messages: CapturedMessage[] | null;
  /** The call's captured messages were there but over MAX_CAPTURED_CHARS: not read, and counted as such. */
  contentTooLarge: boolean;
  /** The answer, when the source captured it. */
  answer: string | null;
  systemSha256: string | null;
}

const unique = (names: readonly string[]) => [...new Set(names)];
const overCap = (value: unknown): boolean => typeof value === 'string' && value.length > MAX_CAPTURED_CHARS;
const ALL_NAMES = unique([...SHARED_PROMPT_NAME, ...CONVENTIONS.flatMap((r) => r.promptName), ...PROPAGATED_PREFIXES.map((p) => `${p}gen_ai.prompt.name`)]);
const ALL_VERSIONS = unique([...SHARED_PROMPT_VERSION, ...CONVENTIONS.flatMap((r) => r.promptVersion), ...PROPAGATED_PREFIXES.map((p) => `${p}gen_ai.prompt.version`)]);
const ROW_NAMES = new Map(CONVENTIONS.map((r) => [r.source, { name: unique([...r.promptName, ...ALL_NAMES]), version: unique([...r.promptVersion, ...ALL_VERSIONS]) }]));

/** The prompt identity on any span, resource or log record: the row's own names first. `undefined`: too long to be one. */
export function identityOf(attributes: AttributeMap, row?: ConventionRow): Identity | undefined {
  const names = row ? ROW_NAMES.get(row.source)! : { name: ALL_NAMES, version: ALL_VERSIONS };
  const name = firstString(attributes, names.name);
  const version = firstString(attributes, names.version);
  if ((name?.length ?? 0) > MAX_IDENTITY_CHARS || (version?.length ?? 0) > MAX_IDENTITY_CHARS) return undefined;
  return { name, version };
}

/** The first row that recognises the span as a model call, or null (an application span, a tool, an embedding). */
export function recogniseRow(attributes: AttributeMap, spanName: unknown, scope: string): ConventionRow | null {
  for (const row of CONVENTIONS) {
    const { attribute, values, spanName: nameRule, scope: scopeRule } = row.recognise;
    const value = attributes.get(attribute);
    if (value === undefined) continue;
    if (values && !(typeof value === 'string' && values.includes(value))) continue;
    if (nameRule && !(typeof spanName === 'string' && nameRule.test(spanName))) continue;
    if (scopeRule && !scopeRule.test(scope)) continue;
    return row;
  }
  return null;
}

/**
 * A model-call span's fields through its row; a skip reason when it cannot be trusted. The messages and the
 * answer are parsed only `withContent` (a caller that neither matches nor keeps them does not pay for the JSON).
 */
export function readModelCall(raw: Record<string, unknown>, row: ConventionRow, attributes: AttributeMap, withContent: boolean): ModelCall | SkipReason {
  if (!validId(raw.traceId, 16) || !validId(raw.spanId, 8)) return 'bad-id';
  const start = nanosToMs(raw.startTimeUnixNano);
  const end = nanosToMs(raw.endTimeUnixNano);
  if (start === null || end === null) return 'bad-timestamps';
  const spanMs = end - start;
  if (!(spanMs >= 0) || spanMs > MAX_PLAUSIBLE_DURATION_S * 1000) return 'absurd-duration';
  // E2E is the span's duration, unless the span says when the last token came (Prompt Insight's own spans end at
  // stream end, after the usage chunk): that is vLLM's E2EL.
  const ownE2e = numberOf(attributes.get(PI_ATTR.e2e));
  const e2eMs = ownE2e !== null && ownE2e >= 0 && ownE2e * 1000 <= spanMs + 1 ? ownE2e * 1000 : spanMs;
  const own = identityOf(attributes, row);
  if (!own) return 'identity-too-long';
  const events = Array.isArray(raw.events) ? raw.events.filter(isObject) : [];

  const ttftMs = ttftOf(row, attributes, events, start);
  // TTFT cannot be negative or later than the end of the response (a millisecond of clock rounding allowed).
  if (ttftMs !== null && (!(ttftMs >= -1) || ttftMs > e2eMs + 1)) return 'absurd-ttft';
  const inputTokens = tokenOf(row.inputTokens, attributes);
  const outputTokens = tokenOf(row.outputTokens, attributes);
  const cacheReadTokens = tokenOf(row.cacheReadTokens, attributes);
  if (inputTokens === undefined || outputTokens === undefined || cacheReadTokens === undefined) return 'absurd-tokens';

  let tpotMs: number | null = null;
  const ownTpot = numberOf(attributes.get(PI_ATTR.timePerOutputToken));
  if (ownTpot !== null && ownTpot >= 0 && ownTpot * 1000 <= e2eMs) tpotMs = ownTpot * 1000;
  else if (ttftMs !== null && outputTokens !== null && outputTokens > 1) tpotMs = (e2eMs - Math.max(0, ttftMs)) / (outputTokens - 1);

  const hash = attributes.get(SYSTEM_HASH_ATTRIBUTE);
  return {
    source: row.source,
    traceId: hexId(raw.traceId as string, 16),
    spanId: hexId(raw.spanId as string, 8),
    parentSpanId: parentOf(raw),
    startMs: start,
    endMs: end,
    e2eMs,
    ttftMs: ttftMs === null ? null : Math.max(0, ttftMs),
    tpotMs,
    inputTokens,
    outputTokens,
    cacheReadTokens,
    errorType: errorTypeOf(row, raw, attributes, events),
    own,
    messages: withContent ? capturedMessages(row.content, attributes) ?? eventMessages(events) : null,
    contentTooLarge: withContent && row.content.some((field) => field.kind !== 'indexed' && overCap(attributes.get(field.attribute))),
    answer: withContent ? capturedAnswer(row.answer, attributes) : null,
    systemSha256: typeof hash === 'string' && /^[0-9a-f]{64}$/i.test(hash) ? hash.toLowerCase() : null,
  };
}

/** The parent span id in hex, or null for a root span (absent, empty or not an id). */
export function parentOf(raw: Record<string, unknown>): string | null {
  return validId(raw.parentSpanId, 8) ? hexId(raw.parentSpanId as string, 8) : null;
}

function ttftOf(row: ConventionRow, attributes: AttributeMap, events: Record<string, unknown>[], startMs: number): number | null {
  for (const { attribute, unit } of row.ttft) {
    const value = attributes.get(attribute);
    if (value === undefined) continue;
    if (unit === 'timestamp') {
      const at = typeof value === 'string' ? Date.parse(value.replace(/^"|"$/g, '')) : NaN;
      if (Number.isFinite(at)) return at - startMs;
      continue;
    }
    const n = numberOf(value);
    if (n !== null) return unit === 's' ? n * 1000 : n;
  }
  // A first-chunk event's time. (Not `gen_ai.choice`: instrumentations emit it once the answer is complete.)
  for (const event of events) {
    if (typeof event.name === 'string' && (FIRST_CHUNK_EVENTS as readonly string[]).includes(event.name)) {
      const at = nanosToMs(event.timeUnixNano);
      if (at !== null) return at - startMs;
    }
  }
  return null;
}

/** Token counts under any of the names; `name#key` reads a key of a JSON attribute (Langfuse's usage_details). */
function tokenOf(names: readonly string[], attributes: AttributeMap): number | null | undefined {
  for (const name of names) {
    const hash = name.indexOf('#');
    let value: unknown = attributes.get(hash < 0 ? name : name.slice(0, hash));
    if (value === undefined) continue;
    if (hash >= 0) {
      if (typeof value !== 'string' || value.length > 10_000) continue;
      try {
        value = (JSON.parse(value) as Record<string, unknown>)?.[name.slice(hash + 1)];
      } catch {
        continue;
      }
      if (value === undefined) continue;
    }
    return tokenCount(value);
  }
  return null;
}

/**
 * `error.type`; else, for a failed call (status ERROR, the row's marker such as Langfuse's level=ERROR, or an
 * HTTP status ≥ 400), the HTTP status, the exception's type, or `_OTHER`. null: the call succeeded.
 */
function errorTypeOf(row: ConventionRow, raw: Record<string, unknown>, attributes: AttributeMap, events: Record<string, unknown>[]): string | null {
  const errorAttr = attributes.get('error.type');
  if (typeof errorAttr === 'string' && errorAttr !== '') return errorAttr.slice(0, MAX_IDENTITY_CHARS);
  const http = firstNumber(attributes, HTTP_STATUS_ATTRIBUTES);
  const failed = (isObject(raw.status) && Number(raw.status.code) === 2) || (row.errorMarker !== undefined && attributes.get(row.errorMarker.attribute) === row.errorMarker.value) || (http !== null && http >= 400);
  if (!failed) return null;
  if (http !== null && http >= 400) return String(http);
  const exception = events.find((e) => e.name === 'exception');
  const type = exception ? attributeMap(exception.attributes).get('exception.type') : undefined;
  return typeof type === 'string' && type !== '' ? type.slice(0, MAX_IDENTITY_CHARS) : '_OTHER';
}

/** Messages recorded as span events (older conventions): one event per message, or `gen_ai.content.prompt` with JSON. */
function eventMessages(events: Record<string, unknown>[]): CapturedMessage[] | null {
  const out: CapturedMessage[] = [];
  for (const event of events) {
    if (typeof event.name !== 'string') continue;
    const attributes = attributeMap(event.attributes);
    const role = MESSAGE_EVENTS.get(event.name);
    const content = attributes.get('content') ?? attributes.get('gen_ai.prompt');
    if (role && typeof content === 'string' && content.length <= MAX_CAPTURED_CHARS) out.push({ role, content });
  }
  return out.length ? out : null;
}

