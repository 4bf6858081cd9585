/**
 * Production adherence: the answers each version received in production (captured on its spans or
 * log records, conventions.ts `answer`) scored with the prompt's reference-free checks — the tests
 * file's assertions for every answer (`defaultTest`, GitHub's evaluators) that need no expected answer:
 * contains, regex, JSON and schema, length, judge rubrics when a judge is configured, and — with a judge —
 * the context checks (hallucination, faithfulness, context relevance) against the passages the app
 * retrieved before the call, read from the retriever spans of its trace (retrievedContext.ts).
 * Bounded: a seeded uniform sample of at most `cap` successful answers per version is kept while the
 * files stream (a reservoir), and only those are scored. Per version: passed of scored, with its Wilson
 * interval, and the answers that could not be scored, with why.
 */
import { JUDGE_TYPES } from '../adherence/checkText';
import { runGroundedOf } from '../adherence/runGrounded';
import { scoreRun, type Judge } from '../adherence/score';
import type { Assertion, TestSuite } from '../adherence/testCases';
import type { AssertionType } from '../adherence/assertionTypes';
import { wilsonInterval } from '../stats/proportions';
import { seededRandom } from '../stats/random';
import { mergeReservoirs, reservoirKeep } from '../stats/reservoir';
import type { ImportedSpan, SpanSink } from './importOtlpSpans';
import { relabelMap, versionKey, type Relabel } from './prodAggregate';
import { VerdictStore } from '../store/verdictStore';

/** Answers scored per version by default: enough for an interval of about ±14 points at 50%. */
export const DEFAULT_SCORED_PER_VERSION = 50;

/** Checks that need a reference answer, the test case's passage ids or the request's timing: not for production answers. */
const NOT_REFERENCE_FREE: ReadonlySet<AssertionType> = new Set<AssertionType>(['equals', 'latency', 'ttft', 'factuality', 'answer-correctness', 'context-recall', 'context-precision']);
/** Checks judged against the retrieved context (and context-relevance against the retrieval's query). */
const CONTEXT_CHECKS: ReadonlySet<AssertionType> = new Set<AssertionType>(['hallucination', 'faithfulness', 'context-faithfulness', 'context-relevance']);

/** Why a context check cannot judge an answer whose trace shows no retrieval. */
const NO_RETRIEVAL_CAPTURED = 'no retriever span before the call in its trace carries the passages (OpenInference RETRIEVER, a Langfuse retriever observation, OpenLLMetry vector-DB results, gen_ai retrieval)';

export interface SampledAnswer {
  answer: string;
  traceId?: string;
  spanId?: string;
  /** The passages retrieved before the call, when its trace shows them; `contextUnusable` says why they are not used. */
  context?: string[];
  contextUnusable?: string;
  /** The retrieval's query (the question, for context-relevance). */
  question?: string;
}

/** Hallucination among the scored answers a context check judged (production's hallucination rate). */
export interface ProdHallucination {
  hallucinated: number;
  judged: number;
  ci95: [number, number] | null;
  /** Answers without a captured context (or over the cap): not judged. */
  withoutContext: number;
}

export interface ProdAdherence {
  /** The checks applied (their labels). */
  checks: string[];
  /** Successful requests with a captured answer, and how many of them were scored (the sample). */
  withAnswer: number;
  sampled: number;
  passed: number;
  /** Scored answers (pass or fail); unscored ones (a check that could not decide) are not in the rate. */
  scored: number;
  unscored: number;
  rate: number | null;
  ci95: [number, number] | null;
  /** Scores read from the store (scored in an earlier run), not scored again. */
  fromStore: number;
  /** Present when a context check ran: how many judged answers hallucinated. */
  hallucination?: ProdHallucination;
}

/** The tests file's checks that hold for any answer (`defaultTest`, GitHub's evaluators), reference-free; judges only with a judge. */
export function referenceFreeChecks(suite: TestSuite, withJudge: boolean): { checks: Assertion[]; leftOut: string[] } {
  const leftOut: string[] = [];
  const checks = (suite.everyAnswer ?? []).filter((a) => {
    if (NOT_REFERENCE_FREE.has(a.type)) return leftOut.push(`${a.label} (needs a reference, context or timing)`), false;
    if (JUDGE_TYPES.has(a.type) && !withJudge) return leftOut.push(`${a.label} (no judge: --judge-endpoint and --judge-model)`), false;
    return true;
  });
  return { checks, leftOut };
}

/** A seeded reservoir of successful answers per version, fed by the same pass that aggregates the spans. */
export class AnswerSample implements SpanSink {
  private readonly byKey = new Map<string, { name: string | null; version: string; seen: number; answers: SampledAnswer[] }>();
  private readonly random: () => number;

  constructor(
    private readonly cap: number,
    private readonly window: { sinceMs?: number; untilMs?: number } = {},
    seed = 1,
  ) {
    this.random = seededRandom(seed ^ 0xad4e);
  }

  span(span: ImportedSpan): void {
    if (span.errorType !== null || span.answer === undefined || this.cap <= 0) return;
    if ((this.window.sinceMs !== undefined && span.endMs < this.window.sinceMs) || (this.window.untilMs !== undefined && span.endMs > this.window.untilMs)) return;
    const key = versionKey(span.promptName, span.promptVersion);
    let entry = this.byKey.get(key);
    if (!entry) this.byKey.set(key, (entry = { name: span.promptName, version: span.promptVersion, seen: 0, answers: [] }));
    const r = span.retrieved;
    this.offer(entry, {
      answer: span.answer,
      ...(span.traceId ? { traceId: span.traceId } : {}),
      ...(span.spanId ? { spanId: span.spanId } : {}),
      ...(r?.unusable ? { contextUnusable: r.unusable } : r && r.passages.length > 0 ? { context: r.passages } : {}),
      ...(r?.query !== undefined ? { question: r.query } : {}),
    });
  }

  skip(): void {}
  other(): void {}

  /** Labels of one revision become one version, as the aggregate's do: their samples are pooled, still at most `cap`. */
  relabel(rename: Relabel): void {
    relabelMap(this.byKey, rename, (entry) => entry, (entry, name, version) => ({ ...entry, name, version }), (into, from) => {
      into.answers = mergeReservoirs(into.answers, into.seen, from.answers, from.seen, this.cap, this.random);
      into.seen += from.seen;
    });
  }

  answersOf(name: string | null, version: string): { seen: number; answers: SampledAnswer[] } {
    const entry = this.byKey.get(versionKey(name, version));
    return entry ? { seen: entry.seen, answers: entry.answers } : { seen: 0, answers: [] };
  }

  private offer(entry: { seen: number; answers: SampledAnswer[] }, answer: SampledAnswer): void {
    reservoirKeep(entry.answers, this.cap, ++entry.seen, answer, this.random);
  }
}

export interface ScoringOptions {
  judge?: Judge;
  /** Which judge (model and endpoint), kept in the stored scores' key. */
  judgeId?: string;
  store?: VerdictStore;
}

/** Scores the sampled answers with the checks (all must pass, as a case without a threshold); the store's scores are reused. */
export async function scoreAnswers(sample: { seen: number; answers: readonly SampledAnswer[] }, checks: Assertion[], { judge, judgeId, store }: ScoringOptions = {}): Promise<ProdAdherence> {
  const needsContext = checks.some((c) => CONTEXT_CHECKS.has(c.type));
  let passed = 0;
  let unscored = 0;
  let fromStore = 0;
  const hallucination: ProdHallucination = { hallucinated: 0, judged: 0, ci95: null, withoutContext: 0 };
  for (const sampled of sample.answers) {
    const { answer } = sampled;
    const context = needsContext ? sampled.context : undefined;
    if (needsContext && !context) hallucination.withoutContext++;
    // The question is in the key (relevance checks judge the answer against it), and so is the judge.
    const key = VerdictStore.key(checks, answer, { ...(context ? { context } : {}), ...(sampled.question !== undefined ? { question: sampled.question } : {}), ...(judge && judgeId !== undefined ? { judge: judgeId } : {}) });
    const stored = store?.get(key);
    if (store?.fromEarlierRun(key)) fromStore++;
    const score = stored ?? (await scoreOne(sampled, checks, needsContext, judge));
    if (score.status === 'pass') passed++;
    else if (score.status === 'unscored') unscored++;
    if (score.hallucinated !== undefined) {
      hallucination.judged++;
      if (score.hallucinated) hallucination.hallucinated++;
    }
    if (!stored && score.status !== 'unscored') store?.set(key, { status: score.status, ...(score.hallucinated !== undefined ? { hallucinated: score.hallucinated } : {}) });
  }
  const scored = sample.answers.length - unscored;
  if (hallucination.judged > 0) hallucination.ci95 = wilsonInterval(hallucination.hallucinated, hallucination.judged);
  return {
    checks: checks.map((c) => c.label),
    withAnswer: sample.seen,
    sampled: sample.answers.length,
    passed,
    scored,
    unscored,
    rate: scored > 0 ? passed / scored : null,
    ci95: scored > 0 ? wilsonInterval(passed, scored) : null,
    fromStore,
    ...(needsContext ? { hallucination } : {}),
  };
}

/** One answer scored: its context (the passages its trace retrieved) and question, or why a context check cannot judge it. */
async function scoreOne(sampled: SampledAnswer, checks: Assertion[], needsContext: boolean, judge?: Judge): Promise<{ status: 'pass' | 'fail' | 'unscored'; hallucinated?: boolean }> {
  const contextProblem = !needsContext || sampled.context ? undefined : sampled.contextUnusable ? `the passages retrieved in its trace are ${sampled.contextUnusable}` : NO_RETRIEVAL_CAPTURED;
  const testCase = {
    description: 'production answer',
    vars: sampled.question !== undefined ? { query: sampled.question } : {},
    assertions: checks,
    threshold: 1,
    ...(contextProblem ? { contextProblem } : {}),
  };
  const run = { answer: sampled.answer, ok: true, ttftMs: null, e2eMs: null, ...(needsContext && sampled.context ? { retrieved: sampled.context.map((text) => ({ text })) } : {}) };
  const result = await scoreRun(testCase, run, judge);
  const grounded = runGroundedOf(result.results);
  return { status: result.status, ...(grounded && grounded.hallucinated !== null ? { hallucinated: grounded.hallucinated } : {}) };
}
