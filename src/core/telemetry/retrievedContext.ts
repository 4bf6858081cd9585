/**
 * The passages an app retrieved before a model call, read from the retriever spans its instrumentation
 * exports — the context production answers are judged against (hallucination, faithfulness). One row per
 * convention, each checked against the library named in its comment:
 * - OpenInference (@arizeai/openinference-core 2.7): `openinference.span.kind=RETRIEVER`,
 *   `retrieval.documents.N.document.content`, the query in `input.value`;
 * - Langfuse (@langfuse/tracing 5.11): `langfuse.observation.type=retriever`, the documents in the JSON of
 *   `langfuse.observation.output` (strings, or objects with `pageContent`/`content`/`text`), the query in
 *   `langfuse.observation.input`;
 * - OpenLLMetry (@traceloop/node-server-sdk 0.27, `withVectorDBCall`): `db.query.result` span events whose
 *   `db.query.result.document` holds the documents' text;
 * - OTel GenAI (semantic conventions 1.45): `gen_ai.operation.name=retrieval`, `gen_ai.retrieval.documents`
 *   (structured or a JSON string; a document's text under `content`), `gen_ai.retrieval.query.text`.
 * Bounded: a span of more than MAX_DOCUMENTS documents, passages over the grounded evaluators' context cap,
 * or documents that are JSON no parser can read (cut by an exporter's limit) are not used: the call's context
 * is then unusable, with the reason said — never cut into a partial context that makes a false verdict.
 */
import { MAX_RETRIEVED_CHARS } from '../retrieval/retrievalStep';
import { parseBoundedJson } from './importLines';
import { isObject, nanosToMs, structuredValue, type AttributeMap } from './otlpValues';

export type RetrievalSourceId = 'openinference' | 'langfuse' | 'openllmetry' | 'otel-genai';

/** What one retriever span says: its passages (or that they were over the cap), the query, when it ended. */
export interface RetrievedContext {
  source: RetrievalSourceId;
  endMs: number;
  passages: string[];
  /** Why the passages are not used (over the cap, too many, unreadable); `passages` is then empty. */
  unusable?: string;
  query?: string;
}

/** Documents read from one retriever span at most (a search's top-k; beyond it is not a retrieval step). */
const MAX_DOCUMENTS = 100;
/** Keys a document object keeps its text under, in the libraries above and LangChain's Document. */
const TEXT_KEYS = ['content', 'pageContent', 'page_content', 'text', 'document'] as const;
/** Keys an output object keeps its documents under. */
const LIST_KEYS = ['documents', 'docs', 'results', 'passages', 'chunks'] as const;

interface RetrievalRow {
  source: RetrievalSourceId;
  /** The span is a retrieval of this source when this holds. */
  is(attributes: AttributeMap, raw: Record<string, unknown>): boolean;
  /** Its documents' text, as found (before the character cap), or why they cannot be read whole. */
  documents(attributes: AttributeMap, raw: Record<string, unknown>): string[] | Unusable;
  query(attributes: AttributeMap): string | undefined;
}

interface Unusable {
  unusable: string;
}

const TOO_MANY: Unusable = { unusable: `over ${MAX_DOCUMENTS} documents` };
const OVER_CAP = `over the context cap (${MAX_RETRIEVED_CHARS.toLocaleString('en-US')} characters)`;
const UNREADABLE: Unusable = { unusable: 'not readable (JSON cut short or malformed)' };
const TOO_BIG: Unusable = { unusable: OVER_CAP };

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/**
 * A value that may be JSON text (bounded), or already structured. Text that looks like a JSON list or object
 * but does not parse is unreadable (an exporter's length limit cut it); a JSON string that does not parse is text.
 */
function parsed(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  const structured = trimmed.startsWith('[') || trimmed.startsWith('{');
  if (!structured && !trimmed.startsWith('"')) return value;
  if (value.length > MAX_RETRIEVED_CHARS * 4) return TOO_BIG;
  const result = parseBoundedJson(value, { maxDepth: 16 });
  return result.ok ? result.value : structured ? UNREADABLE : value;
}

const isUnusable = (v: unknown): v is Unusable => v === UNREADABLE || v === TOO_MANY || v === TOO_BIG;

/** One document's text: a string, or an object's text under TEXT_KEYS (one level of `document` nesting). */
function documentText(doc: unknown, depth = 0): string | undefined {
  if (typeof doc === 'string') return text(doc);
  if (!isObject(doc) || depth > 1) return undefined;
  for (const key of TEXT_KEYS) {
    const value = doc[key];
    const found = typeof value === 'string' ? text(value) : documentText(value, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The documents of an output: a list, or an object holding one under LIST_KEYS, or a single document. */
function documentsOf(value: unknown): string[] | Unusable {
  const v = parsed(value);
  if (isUnusable(v)) return v;
  const list = Array.isArray(v) ? v : isObject(v) ? LIST_KEYS.map((k) => v[k]).find(Array.isArray) ?? [v] : v === undefined ? [] : [v];
  if (list.length > MAX_DOCUMENTS) return TOO_MANY;
  const out: string[] = [];
  for (const doc of list) {
    const t = documentText(doc);
    if (t !== undefined) out.push(t);
  }
  return out;
}

/** The query of an input: a string, or an object's `query`/`input`/`question`. */
function queryOf(value: unknown): string | undefined {
  const v = parsed(value);
  if (typeof v === 'string') return text(v);
  if (isObject(v)) for (const key of ['query', 'input', 'question']) if (typeof v[key] === 'string') return text(v[key]);
  return undefined;
}

const ROWS: readonly RetrievalRow[] = [
  {
    source: 'openinference',
    is: (a) => a.get('openinference.span.kind') === 'RETRIEVER',
    documents: (a) => {
      const out: string[] = [];
      for (let i = 0; ; i++) {
        const content = a.get(`retrieval.documents.${i}.document.content`);
        if (content === undefined && !a.has(`retrieval.documents.${i}.document.id`)) break;
        if (i === MAX_DOCUMENTS) return TOO_MANY;
        const t = text(content);
        if (t !== undefined) out.push(t);
      }
      return out;
    },
    query: (a) => queryOf(a.get('input.value')),
  },
  {
    source: 'langfuse',
    is: (a) => a.get('langfuse.observation.type') === 'retriever',
    documents: (a) => documentsOf(a.get('langfuse.observation.output')),
    query: (a) => queryOf(a.get('langfuse.observation.input')),
  },
  {
    source: 'otel-genai',
    is: (a) => a.get('gen_ai.operation.name') === 'retrieval',
    documents: (a, raw) => documentsOf(a.get('gen_ai.retrieval.documents') ?? rawAttribute(raw, 'gen_ai.retrieval.documents')),
    query: (a) => text(a.get('gen_ai.retrieval.query.text')),
  },
  {
    source: 'openllmetry',
    is: (_a, raw) => resultEvents(raw).length > 0,
    documents: (_a, raw) => {
      const documents = resultEvents(raw).flatMap((event) => {
        const value = rawAttribute(event, 'db.query.result.document');
        return (Array.isArray(value) ? value : [value]).map(text).filter((t): t is string => t !== undefined);
      });
      return documents.length > MAX_DOCUMENTS ? TOO_MANY : documents;
    },
    query: () => undefined,
  },
];

function resultEvents(raw: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(raw.events) ? raw.events.filter((e): e is Record<string, unknown> => isObject(e) && e.name === 'db.query.result') : [];
}

/** One attribute of a span or event in structured form (arrays and maps kept), or undefined. */
function rawAttribute(holder: Record<string, unknown>, key: string): unknown {
  if (!Array.isArray(holder.attributes)) return undefined;
  const kv = holder.attributes.find((e): e is Record<string, unknown> => isObject(e) && e.key === key);
  return kv ? structuredValue(kv.value) : undefined;
}

/** The context a retriever span carries, or null when the span is not a retrieval (or carries no time). */
export function retrievedContextOf(raw: Record<string, unknown>, attributes: AttributeMap): RetrievedContext | null {
  const row = ROWS.find((r) => r.is(attributes, raw));
  if (!row) return null;
  const endMs = nanosToMs(raw.endTimeUnixNano);
  if (endMs === null) return null;
  const documents = row.documents(attributes, raw);
  const query = row.query(attributes);
  const unusable = Array.isArray(documents) ? (documents.reduce((n, p) => n + p.length, 0) > MAX_RETRIEVED_CHARS ? OVER_CAP : undefined) : documents.unusable;
  return { source: row.source, endMs, ...(unusable ? { passages: [], unusable } : { passages: documents as string[] }), ...(query !== undefined && query.length <= MAX_RETRIEVED_CHARS ? { query } : {}) };
}

/** The context of a call: the passages of its trace's retrievals that ended before it started, in order. */
export function contextBefore(retrievals: readonly RetrievedContext[], startMs: number): RetrievedContext | undefined {
  // A millisecond of clock rounding: the retrieval's end and the call's start are stamped by one process.
  const before = retrievals.filter((r) => r.endMs <= startMs + 1).sort((a, b) => a.endMs - b.endMs);
  if (before.length === 0) return undefined;
  const passages = before.flatMap((r) => r.passages);
  const chars = passages.reduce((n, p) => n + p.length, 0);
  const last = before[before.length - 1]!;
  const unusable = before.find((r) => r.unusable)?.unusable ?? (chars > MAX_RETRIEVED_CHARS ? OVER_CAP : undefined);
  const query = [...before].reverse().find((r) => r.query !== undefined)?.query;
  return { source: last.source, endMs: last.endMs, ...(unusable ? { passages: [], unusable } : { passages }), ...(query !== undefined ? { query } : {}) };
}

/** What an entry costs beside its text, in characters: empty retrievals by the million must meet the bound too. */
const ENTRY_OVERHEAD_CHARS = 256;

/** Characters a context holds, with its entry's overhead (for the join's memory bound). */
export function contextChars(context: RetrievedContext): number {
  return context.passages.reduce((n, p) => n + p.length, 0) + (context.query?.length ?? 0) + ENTRY_OVERHEAD_CHARS;
}
