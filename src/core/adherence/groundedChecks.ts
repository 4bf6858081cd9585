/**
 * Grounded evaluators, under promptfoo's assertion names where it has them: the answer's claims are
 * extracted by the judge and each judged against the test case's `context` (retrieved passages) or
 * `reference` (an expected answer). Definitions (docs/quality-metrics.md says how they relate to
 * Ragas and DeepEval):
 * - faithfulness / context-faithfulness: supported ÷ all claims (all three counts kept);
 * - hallucination: the run hallucinates when a claim is contradicted (strict: or not mentioned);
 * - factuality: no claim of the answer contradicts the reference;
 * - answer-correctness: claim precision (answer claims the reference supports), recall (reference
 *   claims the answer supports) and their F1;
 * - context-recall: reference claims the context supports ÷ reference claims;
 * - context-relevance: passages relevant to the question ÷ passages;
 * - answer-relevance: answer claims relevant to the question ÷ answer claims.
 * UNDETERMINED (the assertion undecided, the run unscored — never a 0, never NaN) when no claim can be
 * extracted, the answer refuses, the judge fails or answers off-format, or an input is missing or too
 * large; the reason says which.
 */
import { oversizeReason, quote, type CheckVerdict } from './checkText';
import { extractClaims, judgeClaims, judgeRelevance, type ClaimVerdict, type JudgeProblem } from './claimJudge';
import { NO_JUDGE_REASON, type Judge } from './judgeChecks';
import type { Assertion, TestCase } from './testCases';
import type { GroundedType } from './assertionTypes';

/** Citations kept per verdict. */
const MAX_CITATIONS = 20;

export interface ClaimCounts {
  supported: number;
  contradicted: number;
  notMentioned: number;
  total: number;
}

/** What a grounded evaluator found, beside its pass/fail: counts, scores, and each verdict cited. */
export interface GroundedDetail {
  /** Claims of the answer against the context (faithfulness, hallucination) or reference (factuality). */
  claims?: ClaimCounts;
  /** Present for the claims-against-context evaluators: whether this run hallucinated. */
  hallucinated?: boolean;
  strict?: boolean;
  precision?: number;
  recall?: number;
  f1?: number;
  /** `claim 2 "…" contradicted by passage 1 "…": reason`. */
  citations: string[];
}

export type GroundedVerdict = (CheckVerdict & { decided: true; grounded: GroundedDetail }) | { decided: false; reason: string };

const undetermined = (reason: string): GroundedVerdict => ({ decided: false, reason: `undetermined: ${reason}` });

/** The question the answer answers: promptfoo's `vars.query`, else `question` or `input`. */
export function questionOf(vars: Record<string, unknown>): string | undefined {
  for (const key of ['query', 'question', 'input']) if (typeof vars[key] === 'string' && (vars[key] as string).trim()) return vars[key] as string;
  return undefined;
}

function countsOf(verdicts: readonly ClaimVerdict[]): ClaimCounts {
  const count = (k: ClaimVerdict['verdict']) => verdicts.filter((v) => v.verdict === k).length;
  return { supported: count('supported'), contradicted: count('contradicted'), notMentioned: count('not mentioned'), total: verdicts.length };
}

function cite(verdicts: readonly ClaimVerdict[], passages: readonly string[], sourceName: string, only?: (v: ClaimVerdict) => boolean): string[] {
  return verdicts
    .map((v, i) => ({ v, i }))
    .filter(({ v }) => (only ? only(v) : true))
    .slice(0, MAX_CITATIONS)
    .map(({ v, i }) => `claim ${i + 1} ${quote(v.claim, 100)} ${v.verdict}${v.passage !== null ? ` by ${sourceName} ${v.passage} ${quote(passages[v.passage - 1] ?? '', 100)}` : ''}${v.reason ? `: ${v.reason}` : ''}`);
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const isProblem = (x: unknown): x is JudgeProblem => typeof x === 'object' && x !== null && 'problem' in x;

export async function groundedCheck(assertion: Assertion, answer: string, testCase: Pick<TestCase, 'vars' | 'context' | 'contextProblem' | 'reference'>, judge: Judge | undefined): Promise<GroundedVerdict> {
  if (!judge) return { decided: false, reason: NO_JUDGE_REASON };
  const tooLong = oversizeReason(answer);
  if (tooLong) return undetermined(tooLong);
  const type = assertion.type as GroundedType;
  const threshold = assertion.threshold ?? 0.5;
  const question = questionOf(testCase.vars);
  const reference = typeof assertion.value === 'string' && assertion.value.trim() ? assertion.value : testCase.reference;

  const needContext = (): readonly string[] | string => {
    if (testCase.contextProblem) return testCase.contextProblem;
    const passages = testCase.context ?? [];
    if (passages.length === 0) return 'the test case has no context (add `context:` or `vars.context` with the retrieved passages)';
    return passages;
  };
  const answerClaims = async (): Promise<string[] | string> => {
    const got = await extractClaims(judge, answer, question);
    if (isProblem(got)) return got.problem;
    if (got.refusal) return 'the answer declines to answer, so it makes no claim to judge';
    if (got.claims.length === 0) return 'no claim could be extracted from the answer';
    return got.claims;
  };

  if (type === 'context-relevance') {
    const passages = needContext();
    if (typeof passages === 'string') return undetermined(passages);
    if (!question) return undetermined('context-relevance needs the question in vars.query (or question)');
    const judged = await judgeRelevance(judge, question, passages);
    if (isProblem(judged)) return undetermined(judged.problem);
    const relevant = judged.filter((j) => j.relevant).length;
    const score = relevant / judged.length;
    const citations = judged.slice(0, MAX_CITATIONS).map((j, i) => `passage ${i + 1} ${quote(j.item, 100)} ${j.relevant ? 'relevant' : 'not relevant'}${j.reason ? `: ${j.reason}` : ''}`);
    return { decided: true, holds: score >= threshold, score, reason: `${relevant} of ${judged.length} passages relevant to the question (${pct(score)}, pass at ${pct(threshold)})`, grounded: { citations } };
  }

  if (type === 'context-recall') {
    const passages = needContext();
    if (typeof passages === 'string') return undetermined(passages);
    if (!reference) return undetermined('context-recall needs the expected answer: `value:` or the test case\'s `reference:`');
    const ref = await extractClaims(judge, reference, question);
    if (isProblem(ref)) return undetermined(ref.problem);
    if (ref.claims.length === 0) return undetermined('no claim could be extracted from the reference');
    const verdicts = await judgeClaims(judge, ref.claims, passages);
    if (isProblem(verdicts)) return undetermined(verdicts.problem);
    const claims = countsOf(verdicts);
    const score = claims.supported / claims.total;
    return { decided: true, holds: score >= threshold, score, reason: `${claims.supported} of ${claims.total} reference claims supported by the context (${pct(score)}, pass at ${pct(threshold)})`, grounded: { claims, recall: score, citations: cite(verdicts, passages, 'passage') } };
  }

  if (type === 'answer-relevance') {
    if (!question) return undetermined('answer-relevance needs the question in vars.query (or question)');
    const claims = await answerClaims();
    if (typeof claims === 'string') return undetermined(claims);
    const judged = await judgeRelevance(judge, question, claims);
    if (isProblem(judged)) return undetermined(judged.problem);
    const relevant = judged.filter((j) => j.relevant).length;
    const score = relevant / judged.length;
    const citations = judged.slice(0, MAX_CITATIONS).map((j, i) => `claim ${i + 1} ${quote(j.item, 100)} ${j.relevant ? 'relevant' : 'not relevant'}${j.reason ? `: ${j.reason}` : ''}`);
    return { decided: true, holds: score >= threshold, score, reason: `${relevant} of ${judged.length} claims relevant to the question (${pct(score)}, pass at ${pct(threshold)})`, grounded: { citations } };
  }

  if (type === 'factuality' || type === 'answer-correctness') {
    if (!reference) return undetermined(`${type} needs the expected answer: \`value:\` or the test case's \`reference:\``);
    const claims = await answerClaims();
    if (typeof claims === 'string') return undetermined(claims);
    const verdicts = await judgeClaims(judge, claims, [reference]);
    if (isProblem(verdicts)) return undetermined(verdicts.problem);
    const counts = countsOf(verdicts);
    if (type === 'factuality') {
      const holds = counts.contradicted === 0;
      return {
        decided: true, holds, score: holds ? 1 : 0,
        reason: holds ? `no claim contradicts the reference (${counts.supported} of ${counts.total} supported)` : `${counts.contradicted} of ${counts.total} claims contradict the reference: ${cite(verdicts, [reference], 'reference', (v) => v.verdict === 'contradicted')[0]}`,
        grounded: { claims: counts, citations: cite(verdicts, [reference], 'reference') },
      };
    }
    const ref = await extractClaims(judge, reference, question);
    if (isProblem(ref)) return undetermined(ref.problem);
    if (ref.claims.length === 0) return undetermined('no claim could be extracted from the reference');
    const covered = await judgeClaims(judge, ref.claims, [answer]);
    if (isProblem(covered)) return undetermined(covered.problem);
    const precision = counts.supported / counts.total;
    const recallCounts = countsOf(covered);
    const recall = recallCounts.supported / recallCounts.total;
    const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
    return {
      decided: true, holds: f1 >= threshold, score: f1,
      reason: `claim F1 ${f1.toFixed(2)} (precision ${counts.supported}/${counts.total}, recall ${recallCounts.supported}/${recallCounts.total}; pass at ${threshold})`,
      grounded: { claims: counts, precision, recall, f1, citations: [...cite(verdicts, [reference], 'reference'), ...cite(covered, [answer], 'answer').map((c) => `reference ${c}`)].slice(0, MAX_CITATIONS) },
    };
  }

  // faithfulness, context-faithfulness, hallucination: the answer's claims against the context.
  const passages = needContext();
  if (typeof passages === 'string') return undetermined(passages);
  const claims = await answerClaims();
  if (typeof claims === 'string') return undetermined(claims);
  const verdicts = await judgeClaims(judge, claims, passages);
  if (isProblem(verdicts)) return undetermined(verdicts.problem);
  const counts = countsOf(verdicts);
  const strict = assertion.strict === true;
  const hallucinated = counts.contradicted > 0 || (strict && counts.notMentioned > 0);
  const citations = cite(verdicts, passages, 'passage');
  const tally = `${counts.supported} supported, ${counts.contradicted} contradicted, ${counts.notMentioned} not mentioned of ${counts.total} claims`;
  if (type === 'hallucination') {
    const offending = cite(verdicts, passages, 'passage', (v) => v.verdict === 'contradicted' || (strict && v.verdict === 'not mentioned'))[0];
    return { decided: true, holds: !hallucinated, score: hallucinated ? 0 : 1, reason: hallucinated ? `hallucinates${strict ? ' (strict)' : ''}: ${offending} (${tally})` : `no claim contradicted${strict ? ' or unsupported' : ''} by the context (${tally})`, grounded: { claims: counts, hallucinated, strict, citations } };
  }
  const score = counts.supported / counts.total;
  const firstUnsupported = cite(verdicts, passages, 'passage', (v) => v.verdict !== 'supported')[0];
  return { decided: true, holds: score >= threshold, score, reason: `faithfulness ${score.toFixed(2)}: ${tally}, pass at ${threshold}${firstUnsupported ? `; ${firstUnsupported}` : ''}`, grounded: { claims: counts, hallucinated, strict, citations } };
}
