/**
 * The one definition of a run's metrics (MISSION.md), from the timed events of one exchange.
 * TTFT: request start → first generated token of any kind (answer or reasoning).
 * E2E: request start → last generated token; stream end is reported beside it.
 * TPOT: (E2E − TTFT) / (output tokens − 1). ITL: gaps between successive reads that carried
 * generated tokens (events that arrive in one read are one arrival; a chunk may hold several tokens).
 * These are vLLM `bench serve`'s definitions (E2E there is E2EL). Cache: a run whose prompt the
 * server served in good part (over 10%) from its prefix cache is warm, one with less is cold, one
 * the server says nothing about is unknown. Phases come from what the server reports.
 */
import type { ExchangeResult } from '../endpoint/httpExchange';
import type { ErrorKind, ServerReported, ServerTimings } from '../endpoint/types';

export type CacheState = 'cold' | 'warm' | 'unknown';

/** TTFT = queue + prefill + transfer; decode follows the first token. */
export interface RunPhases {
  /** TTFT − prefill: waiting for a slot, plus transfer (the server cannot tell them apart). */
  queueMs: number | null;
  prefillMs: number;
  decodeMs: number | null;
  /** Where the split came from: the server's answer, or its /metrics histograms read before and after a run alone on it. */
  source: PhaseSource;
}

export type PhaseSource = 'llama.cpp timings' | 'ollama durations' | 'vllm /metrics' | 'sglang /metrics' | 'tgi /metrics';

export interface RunError {
  kind: ErrorKind;
  message: string;
}

export interface RunRecord {
  ok: boolean;
  status: number | null;
  error: RunError | null;
  ttftMs: number | null;
  /** Time to the first answer (non-reasoning) token; differs from TTFT for reasoning models. */
  firstAnswerMs: number | null;
  e2eMs: number | null;
  streamEndMs: number;
  outputTokens: number | null;
  outputTokensSource: 'usage' | 'estimate' | null;
  inputTokens: number | null;
  inputTokensSource: 'usage' | 'estimate' | null;
  tpotMs: number | null;
  itlMs: number[];
  finishReason: string | null;
  /** The provider's id of the response (`chatcmpl-…`, `msg_…`), when it gave one: `gen_ai.response.id`. */
  responseId?: string;
  /** False when the server ignored `stream: true` (TTFT then equals E2E). */
  streamed: boolean;
  /** Rate-limit retries before this attempt. */
  retries: number;
  /** What the endpoint said about its own timing (the simulator reports its true TTFT). */
  server?: ServerReported;
  /** Prompt tokens the server served from its prefix cache (OpenAI/vLLM cached_tokens, llama.cpp cache_n, Anthropic cache reads). */
  cachedInputTokens?: number | null;
  cache?: CacheState;
  phases?: RunPhases | null;
  /** Set when the run shared the server with leftover work of an earlier timed-out or cancelled run. */
  overlappedLeftover?: string;
  /** The answer came from Prompt Insight's simulator. */
  simulated?: true;
  /** The prompt's retrieval step before the model call (RAG chain: retrieval → TTFT → decode); absent when it declares none. */
  retrievalMs?: number | null;
  /** Passages the retrieval step put into the prompt. */
  retrievedPassages?: number;
  /** The grounded evaluators' verdict on this run's answer (faithfulness/hallucination), when it was scored with them. */
  grounded?: RunGrounded;
}

/** Claim counts of a run judged against its context; `hallucinated: null` when the judge could not decide (undetermined). */
export interface RunGrounded {
  hallucinated: boolean | null;
  supported: number;
  contradicted: number;
  notMentioned: number;
}

export interface RunText {
  answer: string;
  reasoning: string;
}

export interface RecordInputs {
  /** Tokenizer count of a text, for estimates when the server reports no usage. */
  countTokens: (text: string) => number;
  /** Texts longer than this are not counted here (runOnce counts them within the run's time: boundedCount.ts). */
  maxInlineCountChars?: number;
  /** Estimated input tokens (prompt + chat overhead), used when usage has none. */
  inputTokensEstimate: number | null;
  retries: number;
}

export function buildRunRecord(result: ExchangeResult, inputs: RecordInputs): { record: RunRecord; text: RunText } {
  const t0 = result.startedAt;
  let firstAny: number | null = null;
  let firstAnswer: number | null = null;
  let last: number | null = null;
  const arrivals: number[] = [];
  let answer = '';
  let reasoning = '';
  let usageIn: number | undefined;
  let usageOut: number | undefined;
  let cached: number | undefined;
  let timings: ServerTimings | undefined;
  let server: ServerReported | undefined;
  let finishReason: string | null = null;
  let responseId: string | undefined;
  let error: RunError | null = null;
  for (const event of result.events) {
    switch (event.kind) {
      case 'token':
      case 'reasoning':
        if (event.kind === 'token') {
          answer += event.text;
          firstAnswer ??= event.t;
        } else {
          reasoning += event.text;
        }
        firstAny ??= event.t;
        last = event.t;
        if (arrivals.length === 0 || arrivals[arrivals.length - 1] !== event.t) arrivals.push(event.t);
        break;
      case 'usage':
        usageIn = event.inputTokens ?? usageIn;
        usageOut = event.outputTokens ?? usageOut;
        cached = event.cachedInputTokens ?? cached;
        if (event.timings) timings = { ...timings, ...event.timings };
        if (event.server) server = event.server;
        break;
      case 'done':
        finishReason = event.finishReason ?? finishReason;
        responseId = event.responseId ?? responseId;
        break;
      case 'error':
        error ??= { kind: event.error.kind, message: event.error.message };
        break;
    }
  }
  const ok = error === null && firstAny !== null;
  if (error === null && firstAny === null) error = { kind: 'malformed_stream', message: 'The answer was complete but carried no generated token.' };
  const countable = (answer || reasoning) && answer.length + reasoning.length <= (inputs.maxInlineCountChars ?? Infinity);
  const outputTokens = usageOut ?? (countable ? inputs.countTokens(reasoning) + inputs.countTokens(answer) : null);
  const ttftMs = firstAny === null ? null : firstAny - t0;
  const e2eMs = last === null ? null : last - t0;
  const tpotMs = ok && ttftMs !== null && e2eMs !== null && outputTokens !== null && outputTokens > 1 ? (e2eMs - ttftMs) / (outputTokens - 1) : null;
  const itlMs: number[] = [];
  for (let i = 1; i < arrivals.length; i++) itlMs.push(arrivals[i]! - arrivals[i - 1]!);
  const record: RunRecord = {
    ok,
    status: result.status,
    error,
    ttftMs,
    firstAnswerMs: firstAnswer === null ? null : firstAnswer - t0,
    e2eMs,
    streamEndMs: result.endedAt - t0,
    outputTokens,
    outputTokensSource: usageOut !== undefined ? 'usage' : outputTokens !== null ? 'estimate' : null,
    inputTokens: usageIn ?? inputs.inputTokensEstimate,
    inputTokensSource: usageIn !== undefined ? 'usage' : inputs.inputTokensEstimate !== null ? 'estimate' : null,
    tpotMs,
    itlMs,
    finishReason,
    ...(responseId ? { responseId } : {}),
    streamed: result.streamed,
    retries: inputs.retries,
    ...(server ? { server } : {}),
    cachedInputTokens: cached ?? null,
    cache: cacheState(cached, usageIn),
    phases: phasesOf(timings, ttftMs),
    ...(result.simulated ? { simulated: true as const } : {}),
  };
  return { record, text: { answer, reasoning } };
}

/**
 * Warm when the server served more than a tenth of the prompt from its cache: a shared chat-template
 * start (a few tokens any two prompts have in common) does not make a run warm.
 */
const WARM_SHARE = 0.1;

function cacheState(cached: number | undefined, inputTokens: number | undefined): CacheState {
  if (cached === undefined) return 'unknown';
  if (cached === 0) return 'cold';
  return inputTokens === undefined || cached > inputTokens * WARM_SHARE ? 'warm' : 'cold';
}

function phasesOf(timings: ServerTimings | undefined, ttftMs: number | null): RunPhases | null {
  if (timings?.promptMs === undefined) return null;
  return runPhases(ttftMs, timings.promptMs, timings.predictedMs ?? null, timings.source ?? 'llama.cpp timings');
}

/** The phases from the server's prefill and decode times; what TTFT holds beyond prefill is queue + transfer. */
export function runPhases(ttftMs: number | null, prefillMs: number, decodeMs: number | null, source: PhaseSource): RunPhases {
  return { queueMs: ttftMs === null ? null : Math.max(0, ttftMs - prefillMs), prefillMs, decodeMs, source };
}

/** Decode rate as vLLM names it: 1000 / TPOT (tokens per second after the first). */
export function decodeTokensPerSec(run: RunRecord): number | null {
  return run.tpotMs !== null && run.tpotMs > 0 ? 1000 / run.tpotMs : null;
}

/** The record with an output-token estimate made after it was built (a large answer counted within the run's time). */
export function withOutputEstimate(record: RunRecord, outputTokens: number): RunRecord {
  const { ok, ttftMs, e2eMs } = record;
  const tpotMs = ok && ttftMs !== null && e2eMs !== null && outputTokens > 1 ? (e2eMs - ttftMs) / (outputTokens - 1) : null;
  return { ...record, outputTokens, outputTokensSource: 'estimate', tpotMs };
}
