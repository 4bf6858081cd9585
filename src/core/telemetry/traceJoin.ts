/**
 * Model calls joined with the rest of their trace: the prompt identity may sit on the call's span, on any
 * ancestor span (an app's request span, OpenLLMetry's workflow, the AI SDK's agent), on the trace's root,
 * or on the Resource; the messages sent may arrive as log records (the official OpenAI instrumentation).
 * Exporters send a span when it ends, so ancestors usually arrive after the call: a call without its own
 * identity is held until its trace's root span has arrived (or the input ends). Everything kept is
 * bounded: held calls, parent links and log messages are each a FIFO of fixed size, the text they carry
 * (messages, answers) within a character budget, and what overflows is released (or forgotten) oldest
 * first — a call is then judged with what had arrived. With `retrievals`,
 * the passages of the trace's retriever spans (retrievedContext.ts) travel with the calls made after them,
 * within a character budget.
 */
import { MAX_CAPTURED_CHARS, type CapturedMessage } from './capturedContent';
import { contextBefore, contextChars, type RetrievedContext } from './retrievedContext';
import { TextBudgetMap } from './textBudgetMap';
import type { Identity, ModelCall } from './spanFields';

export type VersionOrigin = 'span' | 'ancestor' | 'resource' | 'content';

export interface JoinedCall extends ModelCall {
  /** The identity found nearest the call: its span, its ancestors (nearest first), the trace's root, the Resource. */
  identity: Identity;
  versionFrom: Exclude<VersionOrigin, 'content'> | null;
  /** The passages retrieved in its trace before the call started (with `retrievals`). */
  retrieved?: RetrievedContext;
}

export interface JoinOptions {
  /** Calls held for their ancestors (default 100,000). */
  maxHeld?: number;
  /** Parent links and identities of other spans kept (default 200,000). */
  maxLinks?: number;
  /** Join log-record messages to their calls and hold calls for them (content matching, `sample`). */
  content?: boolean;
  /** Hold also the calls that name their prompt and version (their messages or answer may follow as log records: `sample`, production adherence); content matching alone needs only the others. */
  holdIdentified?: boolean;
  /** Keep retriever spans' passages for the calls of their trace (production adherence's context checks). */
  retrievals?: boolean;
  /** Characters of retrieved passages kept at most, over all traces (default 32 M); the oldest trace's go first. */
  maxRetrievedChars?: number;
  /** Characters of captured text (held calls' messages and answers, log-record messages and answers) kept at most (default 64 M). */
  maxTextChars?: number;
}

/** Messages of one call read from log records at most (a call is not 200 turns; a hostile file is). */
const MAX_LOG_MESSAGES = 200;

interface Logged {
  messages: CapturedMessage[];
  answer?: string;
}

/** What a message costs beyond its text (the object, its role): thousands of empty messages are not free. */
const MESSAGE_OVERHEAD_CHARS = 64;

const loggedChars = (l: Logged): number => messagesChars(l.messages) + (l.answer?.length ?? 0);
const messageChars = (m: CapturedMessage): number => m.content.length + MESSAGE_OVERHEAD_CHARS;
const messagesChars = (messages: readonly CapturedMessage[] | null): number => (messages ?? []).reduce((n, m) => n + messageChars(m), 0);
const callChars = (call: ModelCall): number => messagesChars(call.messages) + (call.answer?.length ?? 0);

/** Parent links followed at most (a cycle in a hostile file ends here). */
const MAX_DEPTH = 64;

interface Link {
  parent: string | null;
  identity: Identity | null;
}

const hasIdentity = (i: Identity | null | undefined): i is Identity => !!i && (i.name !== null || i.version !== null);

export class TraceJoin {
  private readonly held = new Map<string, { call: ModelCall; resource: Identity | null }>();
  private readonly heldByTrace = new Map<string, Set<string>>();
  private readonly links = new Map<string, Link>();
  private readonly roots = new Map<string, Identity>();
  /** What log records said of a call (its messages, its answer), by `trace/span`, oldest first. */
  private readonly logged: TextBudgetMap<Logged>;
  /** The retrievals of each trace, oldest trace first. */
  private readonly retrievals: TextBudgetMap<RetrievedContext[]>;
  /** Characters of text in held calls. */
  private heldTextChars = 0;
  private readonly maxHeld: number;
  private readonly maxLinks: number;
  private readonly maxTextChars: number;

  constructor(
    private readonly emit: (call: JoinedCall) => void,
    private readonly options: JoinOptions = {},
  ) {
    this.maxHeld = options.maxHeld ?? 100_000;
    this.maxLinks = options.maxLinks ?? 200_000;
    this.maxTextChars = options.maxTextChars ?? 64_000_000;
    this.logged = new TextBudgetMap(loggedChars, this.maxTextChars, this.maxLinks);
    this.retrievals = new TextBudgetMap((contexts) => contexts.reduce((n, c) => n + contextChars(c), 0), options.maxRetrievedChars ?? 32_000_000);
  }

  modelCall(call: ModelCall, resource: Identity | null): void {
    if (call.own.version !== null && call.own.name !== null && !this.options.holdIdentified) return this.release({ call, resource });
    const key = `${call.traceId}/${call.spanId}`;
    // The same span again (an exporter's retry) takes the place of the first copy, and of its characters.
    const before = this.held.get(key);
    if (before) this.heldTextChars -= callChars(before.call);
    this.held.set(key, { call, resource });
    this.heldTextChars += callChars(call);
    const ofTrace = this.heldByTrace.get(call.traceId);
    if (ofTrace) ofTrace.add(key);
    else this.heldByTrace.set(call.traceId, new Set([key]));
    // Held calls are bounded in number and in the text they carry: the oldest is judged with what arrived.
    while (this.held.size > this.maxHeld || (this.heldTextChars > this.maxTextChars && this.held.size > 1)) {
      const [oldest] = this.held.keys();
      this.releaseKey(oldest!);
    }
  }

  /** Any other span: its parent and identity, for the calls below it. A root span completes its trace. */
  span(traceId: string, spanId: string, parent: string | null, identity: Identity | null): void {
    if (parent === null) {
      if (hasIdentity(identity)) remember(this.roots, traceId, identity, this.maxLinks);
      this.completeTrace(traceId);
      return;
    }
    if (hasIdentity(identity) || this.heldByTrace.has(traceId)) remember(this.links, `${traceId}/${spanId}`, { parent, identity: hasIdentity(identity) ? identity : null }, this.maxLinks);
  }

  /** A message of a call, from a log record or event tied to its span. */
  message(traceId: string, spanId: string, message: CapturedMessage): void {
    if (!this.options.content || message.content.length > MAX_CAPTURED_CHARS) return;
    const entry = this.logged.entry(`${traceId}/${spanId}`, () => ({ messages: [] }));
    if (entry.messages.length >= MAX_LOG_MESSAGES) return;
    entry.messages.push(message);
    this.logged.grew(messageChars(message));
  }

  /** The answer of a call, from a `gen_ai.choice` log record tied to its span. */
  answer(traceId: string, spanId: string, text: string): void {
    if (!this.options.content || text.length > MAX_CAPTURED_CHARS) return;
    const entry = this.logged.entry(`${traceId}/${spanId}`, () => ({ messages: [] }));
    const grown = text.length - (entry.answer?.length ?? 0);
    entry.answer = text;
    this.logged.grew(grown);
  }

  /**
   * A retriever span's passages, for the calls of its trace that start after it ended. Kept past the trace's
   * root: exporters send a streamed call's span after the request span that holds it (seen with OpenLLMetry and
   * the official SDK), so the budget alone bounds them.
   */
  retrieval(traceId: string, context: RetrievedContext): void {
    if (!this.options.retrievals) return;
    this.retrievals.entry(traceId, () => []).push(context);
    this.retrievals.grew(contextChars(context));
  }

  /** The input ended: every held call is judged with what arrived. */
  end(): void {
    for (const key of [...this.held.keys()]) this.releaseKey(key);
  }

  private completeTrace(traceId: string): void {
    for (const key of [...(this.heldByTrace.get(traceId) ?? [])]) {
      // Log records may still follow the spans: a call that needs its messages waits for the end.
      if (this.options.content && !this.held.get(key)?.call.messages && !this.logged.get(key)?.messages.length) continue;
      this.releaseKey(key);
    }
  }

  private releaseKey(key: string): void {
    const entry = this.held.get(key);
    if (!entry) return;
    this.held.delete(key);
    this.heldTextChars -= callChars(entry.call);
    const ofTrace = this.heldByTrace.get(entry.call.traceId);
    ofTrace?.delete(key);
    if (ofTrace?.size === 0) this.heldByTrace.delete(entry.call.traceId);
    this.release(entry);
  }

  private release({ call, resource }: { call: ModelCall; resource: Identity | null }): void {
    let name = call.own.name;
    let version = call.own.version;
    let versionFrom: JoinedCall['versionFrom'] = version !== null ? 'span' : null;
    const take = (identity: Identity | null | undefined, from: 'ancestor' | 'resource') => {
      if (!identity) return;
      name ??= identity.name;
      if (version === null && identity.version !== null) {
        version = identity.version;
        versionFrom = from;
      }
    };
    let at = call.parentSpanId;
    for (let depth = 0; at !== null && depth < MAX_DEPTH && (name === null || version === null); depth++) {
      const link = this.links.get(`${call.traceId}/${at}`);
      if (!link) break;
      take(link.identity, 'ancestor');
      at = link.parent;
    }
    // The root is every span's ancestor, however the links between them were lost.
    if (name === null || version === null) take(this.roots.get(call.traceId), 'ancestor');
    take(resource, 'resource');
    const key = `${call.traceId}/${call.spanId}`;
    const entry = this.logged.take(key);
    const logged = entry?.messages.length ? entry.messages : undefined;
    const answer = call.answer ?? entry?.answer ?? null;
    const retrieved = this.options.retrievals ? contextBefore(this.retrievals.get(call.traceId) ?? [], call.startMs) : undefined;
    this.emit({ ...call, messages: call.messages ?? logged ?? null, answer, identity: { name, version }, versionFrom, ...(retrieved ? { retrieved } : {}) });
  }
}

/** A FIFO map of bounded size: the oldest entry goes when a new one would exceed it. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  if (!map.has(key) && map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}
