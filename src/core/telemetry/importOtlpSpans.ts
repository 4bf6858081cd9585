/**
 * OTLP JSON objects (lines of the Collector's file exporter: `TracesData`, and `LogsData` for messages
 * recorded as log records) → the model calls in them, reduced to what production numbers need. Each span
 * is read through the conventions table (conventions.ts, spanFields.ts), joined with its trace for the
 * prompt identity (traceJoin.ts), and, when nothing names its version, matched by the messages it sent
 * (a caller's `matchContent`). Everything else (other spans, unknown attributes) is passed over; a span
 * that cannot be trusted is skipped with a reason — per source — never thrown on.
 *
 * OTLP JSON mapping: lowerCamelCase keys, trace/span ids as hex (some exporters send base64), int64 as
 * decimal strings (numbers accepted), `status.code` 2 = ERROR.
 */
import type { SkipReason } from './skipReasons';
import { capturedMessages, MAX_CAPTURED_CHARS, toGenAiJson } from './capturedContent';
import { conventionRow, MESSAGE_EVENTS, type SourceId } from './conventions';
import { attributeMap, bodyMap, hexId, isObject, validId } from './otlpValues';
import { identityOf, parentOf, readModelCall, recogniseRow, type CallFigures, type Identity } from './spanFields';
import { TraceJoin, type JoinedCall, type VersionOrigin } from './traceJoin';
import { retrievedContextOf, type RetrievedContext } from './retrievedContext';

export { validId } from './otlpValues';

export interface ImportedSpan extends CallFigures {
  promptName: string | null;
  promptVersion: string;
  /** Which convention the span was read with (conventions.ts). */
  source: SourceId;
  /** Where the version came from: the span, an ancestor span, the Resource, or the messages it sent. */
  versionFrom: VersionOrigin;
  /** The span's trace and span ids in hex (provenance for sampled production cases). */
  traceId?: string;
  spanId?: string;
  /** The messages sent, in the GenAI JSON form (`gen_ai.input.messages`), when asked for and captured. */
  inputMessages?: string;
  /** The messages sent were captured but over the cap (not read): `sample` counts them apart. */
  inputTooLarge?: true;
  /** The answer received, when asked for and captured. */
  answer?: string;
  /** The passages retrieved in its trace before the call (with `keepRetrievals`). */
  retrieved?: RetrievedContext;
}

export type { SkipReason } from './skipReasons';

export interface SpanSink {
  span(span: ImportedSpan): void;
  /** `source`: the convention of a model-call span that was left out (absent for lines). */
  skip(reason: SkipReason, source?: SourceId): void;
  /** A span that is not a model call (counted, not an error). */
  other(): void;
}

/** A version for a call that names none, from the messages it sent (versionResolver.ts), or null. */
export type ContentMatcher = (call: JoinedCall) => { name: string; version: string } | null;

export interface ReaderOptions {
  /** Matches calls without a version by their messages. */
  matchContent?: ContentMatcher;
  /** Hand on the messages sent (`inputMessages`), for `sample`. */
  keepContent?: boolean;
  /** Hand on the answers received (`answer`), for production adherence. */
  keepAnswers?: boolean;
  /** Hand on, with the answers, the passages retrieved before each call in its trace (context checks). */
  keepRetrievals?: boolean;
  maxHeld?: number;
}

const GENAI_CONTENT = conventionRow('otel-genai').content;

/** Reads OTLP objects one after another into a sink; `end()` once the input is done. */
export class OtlpReader {
  private readonly join: TraceJoin;
  /** Whether a call's messages and answer are read at all. */
  private readonly withContent: boolean;

  constructor(
    private readonly sink: SpanSink,
    private readonly options: ReaderOptions = {},
  ) {
    const content = options.matchContent !== undefined || options.keepContent === true || options.keepAnswers === true;
    const holdIdentified = options.keepContent === true || options.keepAnswers === true;
    const retrievals = options.keepAnswers === true && options.keepRetrievals === true;
    this.withContent = content;
    this.join = new TraceJoin((call) => this.emit(call), { content, holdIdentified, retrievals, ...(options.maxHeld !== undefined ? { maxHeld: options.maxHeld } : {}) });
  }

  data(data: unknown): void {
    if (isObject(data) && Array.isArray(data.resourceLogs)) return this.logs(data.resourceLogs);
    const resourceSpans = isObject(data) ? data.resourceSpans : undefined;
    if (!Array.isArray(resourceSpans)) return this.sink.skip('not-traces-data');
    for (const rs of resourceSpans) {
      if (!isObject(rs)) continue;
      const resource = isObject(rs.resource) ? identityOf(attributeMap(rs.resource.attributes)) ?? null : null;
      // `instrumentationLibrarySpans`: the name before OTLP 0.15 (files from older Collectors).
      const scopeSpans = rs.scopeSpans ?? rs.instrumentationLibrarySpans;
      if (!Array.isArray(scopeSpans)) continue;
      for (const ss of scopeSpans) {
        if (!isObject(ss) || !Array.isArray(ss.spans)) continue;
        const scopeObject = ss.scope ?? ss.instrumentationLibrary;
        const scope = isObject(scopeObject) && typeof scopeObject.name === 'string' ? scopeObject.name : '';
        for (const span of ss.spans) this.readSpan(span, scope, resource);
      }
    }
  }

  end(): void {
    this.join.end();
  }

  private readSpan(raw: unknown, scope: string, resource: Identity | null): void {
    if (!isObject(raw)) return this.sink.skip('bad-span');
    const attributes = attributeMap(raw.attributes);
    const row = recogniseRow(attributes, raw.name, scope);
    if (!row) {
      this.sink.other();
      if (!validId(raw.traceId, 16) || !validId(raw.spanId, 8)) return;
      const traceId = hexId(raw.traceId as string, 16);
      if (this.options.keepRetrievals) {
        const context = retrievedContextOf(raw, attributes);
        if (context) this.join.retrieval(traceId, context);
      }
      this.join.span(traceId, hexId(raw.spanId as string, 8), parentOf(raw), identityOf(attributes) ?? null);
      return;
    }
    const call = readModelCall(raw, row, attributes, this.withContent);
    if (typeof call === 'string') return this.sink.skip(call, row.source);
    this.join.modelCall(call, resource);
  }

  /** Log records tied to a span: the messages of the older GenAI events, or the `gen_ai.*` content attributes. */
  private logs(resourceLogs: unknown[]): void {
    if (!this.withContent) return; // log records carry only messages and answers
    for (const rl of resourceLogs) {
      const scopeLogs = isObject(rl) ? rl.scopeLogs : undefined;
      if (!Array.isArray(scopeLogs)) continue;
      for (const sl of scopeLogs) {
        if (!isObject(sl) || !Array.isArray(sl.logRecords)) continue;
        for (const record of sl.logRecords) {
          if (!isObject(record) || !validId(record.traceId, 16) || !validId(record.spanId, 8)) continue;
          const attributes = attributeMap(record.attributes);
          const event = attributes.get('event.name') ?? record.eventName;
          const role = typeof event === 'string' ? MESSAGE_EVENTS.get(event) : undefined;
          const traceId = hexId(record.traceId as string, 16);
          const spanId = hexId(record.spanId as string, 8);
          if (event === 'gen_ai.choice') {
            const text = choiceText(record.body);
            if (text !== null) this.join.answer(traceId, spanId, text);
            continue;
          }
          if (role) {
            const content = bodyMap(record.body).get('content');
            if (typeof content === 'string') this.join.message(traceId, spanId, { role, content });
            continue;
          }
          for (const m of capturedMessages(GENAI_CONTENT, attributes) ?? []) this.join.message(traceId, spanId, m);
        }
      }
    }
  }

  private emit(call: JoinedCall): void {
    let { name, version } = call.identity;
    let versionFrom: VersionOrigin | null = call.versionFrom;
    if (version === null && this.options.matchContent) {
      const matched = this.options.matchContent(call);
      if (matched) {
        version = matched.version;
        name ??= matched.name;
        versionFrom = 'content';
      }
    }
    if (version === null || versionFrom === null) return this.sink.skip('no-prompt-version', call.source);
    this.sink.span({
      promptName: name,
      promptVersion: version,
      source: call.source,
      versionFrom,
      startMs: call.startMs,
      endMs: call.endMs,
      e2eMs: call.e2eMs,
      ttftMs: call.ttftMs,
      tpotMs: call.tpotMs,
      inputTokens: call.inputTokens,
      outputTokens: call.outputTokens,
      cacheReadTokens: call.cacheReadTokens,
      errorType: call.errorType,
      traceId: call.traceId,
      spanId: call.spanId,
      ...(this.options.keepContent && call.messages ? { inputMessages: toGenAiJson(call.messages) } : this.options.keepContent && call.contentTooLarge ? { inputTooLarge: true } : {}),
      ...(this.options.keepAnswers && call.answer !== null ? { answer: call.answer } : {}),
      ...(call.retrieved ? { retrieved: call.retrieved } : {}),
    });
  }
}

/** The answer in a `gen_ai.choice` log record's body: `{index, finish_reason, message: {role, content}}`. */
function choiceText(body: unknown): string | null {
  const entries = isObject(body) && isObject(body.kvlistValue) && Array.isArray(body.kvlistValue.values) ? body.kvlistValue.values : [];
  const message = entries.find((e): e is Record<string, unknown> => isObject(e) && e.key === 'message');
  const value = isObject(message?.value) && isObject(message.value.kvlistValue) ? attributeMap(message.value.kvlistValue.values).get('content') : undefined;
  return typeof value === 'string' && value.length <= MAX_CAPTURED_CHARS ? value : null;
}

/** Reads the spans of one parsed `TracesData` object into the sink (a whole input of one object). */
export function collectSpans(data: unknown, sink: SpanSink, options: ReaderOptions = {}): void {
  const reader = new OtlpReader(sink, options);
  reader.data(data);
  reader.end();
}
