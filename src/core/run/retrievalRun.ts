/**
 * A run of a prompt that declares a retrieval step (core/retrieval/retrievalStep.ts): the query is
 * rendered once when the run is planned (retrievalQuery.ts); before each run the step sends it, its
 * passages fill the named input and the prompt is rendered again with them. Each run keeps `retrievalMs` and the passage count; a step
 * that fails is a failed run with kind `retrieval-…`, and the model is not called.
 */
import type { ScoredRun } from '../adherence/score';
import type { RunOutcome } from './runOnce';
import type { ChatRequest, ErrorKind } from '../endpoint/types';
import type { RunRecord } from '../metrics/runRecord';
import { passagesText, retrieve, RetrievalError, type Passage, type RetrievalStep } from '../retrieval/retrievalStep';
import { chatTokenTotal } from '../tokens/chatOverhead';
import type { TokenEncoder } from '../tokens/engine';

/** What a plan needs to run its retrieval step per run. */
export interface PlannedRetrieval {
  step: RetrievalStep;
  /** The query as sent, rendered from the run's literal inputs when the run was planned. */
  query: string;
  /** The run's inputs, before the step fills `step.into`. */
  vars: Record<string, unknown>;
  /** Renders the prompt with inputs (the passages filled in). */
  render: (vars: Record<string, unknown>) => Promise<ChatRequest>;
}

export type RetrievedRequest =
  | { ok: true; request: ChatRequest; inputTokensEstimate: number; retrievalMs: number; passages: Passage[] }
  | { ok: false; outcome: RunOutcome };

/** `runTimeoutMs`: the run's own timeout, which bounds the step too. */
export async function retrieveForRun(retrieval: PlannedRetrieval, encoder: TokenEncoder, options: { signal?: AbortSignal; runTimeoutMs: number }): Promise<RetrievedRequest> {
  const started = performance.now();
  try {
    const retrieved = await retrieve(retrieval.step, retrieval.query, options);
    const request = await retrieval.render({ ...retrieval.vars, [retrieval.step.into]: passagesText(retrieved.passages) });
    const inputTokensEstimate = chatTokenTotal(
      request.messages.map((m) => ({ contentTokens: encoder.count(m.content), roleTokens: encoder.count(m.role), ...(m.name ? { nameTokens: encoder.count(m.name) } : {}) })),
    ).total;
    return { ok: true, request, inputTokensEstimate, retrievalMs: retrieved.retrievalMs, passages: retrieved.passages };
  } catch (error) {
    const elapsed = performance.now() - started;
    if (error instanceof RetrievalError) {
      const kind = error.kind === 'cancelled' ? 'cancelled' : (`retrieval-${error.kind}` as const);
      return { ok: false, outcome: failedRun(kind, `retrieval: ${error.message}`, elapsed) };
    }
    return { ok: false, outcome: failedRun('retrieval-bad_response', `retrieval: the prompt could not be rendered with the passages: ${(error as Error).message}`, elapsed) };
  }
}

/** The record of a run that ended in its retrieval step: no model call, no token. */
function failedRun(kind: ErrorKind, message: string, retrievalMs: number): RunOutcome {
  const record: RunRecord = {
    ok: false,
    status: null,
    error: { kind, message },
    ttftMs: null,
    firstAnswerMs: null,
    e2eMs: null,
    streamEndMs: 0,
    outputTokens: null,
    outputTokensSource: null,
    inputTokens: null,
    inputTokensSource: null,
    tpotMs: null,
    itlMs: [],
    finishReason: null,
    streamed: false,
    retries: 0,
    // A step that timed out took its whole timeout: kept, so the chain's failures are visible; a refused answer too.
    retrievalMs: kind === 'cancelled' ? null : retrievalMs,
    retrievedPassages: 0,
  };
  return { record, text: { answer: '', reasoning: '' } };
}

/** An outcome of a run that retrieved: the passages ride beside the record (not stored: the store keeps the count). */
export type RetrievedOutcome = RunOutcome & { retrieved?: Passage[] };

/** The record of a run that retrieved: its step's time and passage count; the passages beside it for the grounded evaluators. */
export function withRetrieval(outcome: RunOutcome, retrievalMs: number, passages: Passage[]): RetrievedOutcome {
  return { ...outcome, record: { ...outcome.record, retrievalMs, retrievedPassages: passages.length }, retrieved: passages };
}

/** The passages a run's retrieval step gave it, when it had one. */
export function retrievedOf(outcome: RunOutcome): Passage[] | undefined {
  return (outcome as RetrievedOutcome).retrieved;
}

/** A run as its checks read it: the answer, whether and how fast it finished, the passages it was given (the caller adds how to word an error). */
export function scoredRunOf(outcome: RunOutcome): ScoredRun {
  const { record } = outcome;
  const retrieved = retrievedOf(outcome);
  return { answer: outcome.text.answer, ok: record.ok, ttftMs: record.ttftMs, e2eMs: record.e2eMs, ...(retrieved ? { retrieved } : {}) };
}
