/**
 * The retrieval step of a RAG prompt, declared in its front matter (Prompty, Dotprompt, Markdown) or
 * at the top of a `.prompt.yml`:
 *
 *   retrieval: { url: http://localhost:8000/search, query: "{{question}}", into: context, topK: 5 }
 *
 * Before the prompt is rendered, the query (rendered from literal inputs only, retrievalQuery.ts) is
 * POSTed as `{"query": "…", "topK": 5}` and the answer `{"passages": [{"text": "…", "id"?: "…",
 * "score"?: 0.8}]}` fills the input named by `into` (the passages' texts joined by blank lines; the
 * passages themselves are kept for the grounded evaluators). The step is timed (`retrievalMs`) like
 * the model call, bounded in time (its own timeout or the run's, whichever is shorter) and in size
 * both ways, and every failure has a kind — a hanging search service is a failed run (`timeout`),
 * never a hang. Credentials in the URL are never sent or shown. Only http(s) URLs: a command is not
 * run. The URL is a file's say: every face asks the user before the first query goes there.
 */
import { detectFormat } from '../formats/detect';
import { readFrontMatter } from '../formats/frontMatterDoc';
import { isPlainRecord, parseYaml } from '../formats/yaml';
import { readBodyBounded } from '../endpoint/boundedBody';
import { registerUrlSecrets } from '../endpoint/secrets';

export interface RetrievalStep {
  url: string;
  /** Mustache template over the prompt's inputs. */
  query: string;
  /** Input the passages fill (default `context`). */
  into: string;
  topK: number;
  timeoutMs: number;
}

export interface Passage {
  text: string;
  id?: string;
  score?: number;
}

export type RetrievalErrorKind = 'timeout' | 'connection_failed' | 'http_error' | 'bad_response' | 'too_large' | 'cancelled';

export class RetrievalError extends Error {
  constructor(readonly kind: RetrievalErrorKind, message: string) {
    super(message);
  }
}

export interface Retrieved {
  passages: Passage[];
  retrievalMs: number;
}

/** The step a file declares, or why it cannot be read (a gate reports the base's as it is). */
export interface DeclaredRetrieval {
  step?: RetrievalStep;
  error?: string;
}

export const DEFAULT_RETRIEVAL_TIMEOUT_MS = 10_000;
const MAX_TOP_K = 100;
/** A search answer above this is refused, not read further. */
export const MAX_RETRIEVAL_RESPONSE_BYTES = 2 * 1024 * 1024;
/** Passages together above this many characters are refused (the grounded evaluators' context cap). */
export const MAX_RETRIEVED_CHARS = 100_000;
/**
 * A request body above this is refused, not sent: far above any search query (embedding models take
 * at most ~8,000 tokens, about 32 KB of text), far below what a hostile template can build.
 */
export const MAX_RETRIEVAL_REQUEST_BYTES = 64 * 1024;
/** Longest timer Node keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Where the query goes, as shown, asked about and remembered: origin and path, never credentials or the query string. */
export function retrievalDestination(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** The body POSTed for a query; a RetrievalError (`too_large`) when it is above the bound. */
export function retrievalRequestBody(query: string, topK: number): string {
  const body = JSON.stringify({ query, topK });
  const bytes = Buffer.byteLength(body);
  if (bytes > MAX_RETRIEVAL_REQUEST_BYTES) {
    throw new RetrievalError('too_large', `the rendered retrieval query makes a request body of ${bytes.toLocaleString('en-US')} bytes; above ${MAX_RETRIEVAL_REQUEST_BYTES.toLocaleString('en-US')} it is not sent`);
  }
  return body;
}

/** The step a prompt file declares (its format detected from its name and text), or why it cannot be read. */
export function declaredRetrievalIn(file: string, text: string): DeclaredRetrieval {
  return declaredRetrieval(text, detectFormat(file, text) === 'github-prompt-yaml');
}

/** The step a file declares, or why it cannot be read. */
export function declaredRetrieval(text: string, isPromptYaml: boolean): DeclaredRetrieval {
  try {
    const step = retrievalStepOf(text, isPromptYaml);
    return step ? { step } : {};
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The step a prompt file declares, undefined when none; a malformed one is an Error saying how to write it. */
export function retrievalStepOf(text: string, isPromptYaml: boolean): RetrievalStep | undefined {
  let raw: unknown;
  if (isPromptYaml) {
    const parsed = parseYaml(text, 0);
    raw = isPlainRecord(parsed.value) ? parsed.value.retrieval : undefined;
  } else {
    raw = readFrontMatter(text).fields.raw('retrieval');
  }
  if (raw === undefined) return undefined;
  const how = 'write it as retrieval: { url: http://localhost:8000/search, query: "{{question}}", into: context, topK: 5 }';
  if (!isPlainRecord(raw)) throw new Error(`retrieval must be a map; ${how}`);
  if (typeof raw.command === 'string') throw new Error('retrieval: a command is not run; give the search service as url');
  if (typeof raw.url !== 'string') throw new Error(`retrieval needs a url; ${how}`);
  let url: URL;
  try {
    url = new URL(raw.url);
  } catch {
    throw new Error(`retrieval.url is not a URL; ${how}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('retrieval.url must be http or https');
  if (typeof raw.query !== 'string' || !raw.query.trim()) throw new Error(`retrieval needs a query template; ${how}`);
  const into = raw.into === undefined ? 'context' : raw.into;
  if (typeof into !== 'string' || !/^[A-Za-z_][\w-]*$/.test(into)) throw new Error('retrieval.into must name an input, e.g. into: context');
  const topK = raw.topK === undefined ? 5 : raw.topK;
  if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 1 || topK > MAX_TOP_K) throw new Error(`retrieval.topK must be a whole number from 1 to ${MAX_TOP_K}`);
  const timeoutMs = raw.timeoutMs === undefined ? DEFAULT_RETRIEVAL_TIMEOUT_MS : raw.timeoutMs;
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) throw new Error('retrieval.timeoutMs must be a positive number of milliseconds');
  return { url: raw.url, query: raw.query, into, topK, timeoutMs };
}

/**
 * Sends the rendered query and reads the passages, within the step's own timeout or the run's
 * (`runTimeoutMs`), whichever is shorter: a file can shorten the run's bound, never lengthen it.
 */
export async function retrieve(step: RetrievalStep, query: string, options: { signal?: AbortSignal; runTimeoutMs?: number } = {}): Promise<Retrieved> {
  const target = new URL(step.url);
  if (target.username || target.password) {
    registerUrlSecrets(step.url);
    target.username = '';
    target.password = '';
  }
  const shown = retrievalDestination(target.href);
  const body = retrievalRequestBody(query, step.topK);
  const byRun = options.runTimeoutMs !== undefined && options.runTimeoutMs < step.timeoutMs;
  const timeoutMs = Math.min(step.timeoutMs, options.runTimeoutMs ?? Infinity, MAX_TIMER_MS);
  const { signal } = options;
  const started = performance.now();
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let text: string;
  try {
    const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body, signal: combined, redirect: 'manual' });
    if (!response.ok) {
      await response.body?.cancel();
      throw new RetrievalError('http_error', `the search service ${shown} answered HTTP ${response.status}`);
    }
    text = await readBounded(response, shown);
  } catch (error) {
    if (error instanceof RetrievalError) throw error;
    if (signal?.aborted) throw new RetrievalError('cancelled', 'retrieval cancelled');
    if (timeout.aborted) throw new RetrievalError('timeout', `the search service ${shown} did not answer within ${timeoutMs} ms (${byRun ? "the run's timeout" : 'retrieval.timeoutMs'})`);
    const cause = (error as { cause?: { code?: unknown } }).cause;
    throw new RetrievalError('connection_failed', `cannot reach the search service ${shown}${typeof cause?.code === 'string' ? ` (${cause.code})` : ''}`);
  }
  const retrievalMs = performance.now() - started;
  const passages = passagesOf(text, shown).slice(0, step.topK);
  const chars = passages.reduce((n, p) => n + p.text.length, 0);
  if (chars > MAX_RETRIEVED_CHARS) throw new RetrievalError('too_large', `the search service returned ${chars.toLocaleString('en-US')} characters of passages; above ${MAX_RETRIEVED_CHARS.toLocaleString('en-US')} they are not used`);
  return { passages, retrievalMs };
}

/** The passages' texts as the input `into` receives them. */
export function passagesText(passages: readonly Passage[]): string {
  return passages.map((p) => p.text).join('\n\n');
}

async function readBounded(response: Response, shown: string): Promise<string> {
  const body = await readBodyBounded(response, MAX_RETRIEVAL_RESPONSE_BYTES);
  if ('tooLarge' in body) throw new RetrievalError('too_large', `the search service ${shown} answered more than ${MAX_RETRIEVAL_RESPONSE_BYTES} bytes`);
  return body.text;
}

function passagesOf(text: string, shown: string): Passage[] {
  const expected = 'expected {"passages": [{"text": "…", "id"?: "…", "score"?: 0.8}]}';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RetrievalError('bad_response', `the search service ${shown} did not answer JSON; ${expected}`);
  }
  if (!isPlainRecord(json) || !Array.isArray(json.passages)) throw new RetrievalError('bad_response', `the search service ${shown} answered without passages; ${expected}`);
  return json.passages.map((p, i) => {
    if (!isPlainRecord(p) || typeof p.text !== 'string') throw new RetrievalError('bad_response', `passage ${i + 1} from ${shown} has no text; ${expected}`);
    return { text: p.text, ...(typeof p.id === 'string' || typeof p.id === 'number' ? { id: String(p.id) } : {}), ...(typeof p.score === 'number' && Number.isFinite(p.score) ? { score: p.score } : {}) };
  });
}
