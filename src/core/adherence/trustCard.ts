/**
 * A trust card for one judged check: the judge is asked about every answer people
 * labelled for that check, and its verdicts are set against theirs — TPR and TNR for *fail* with
 * Wilson intervals, Cohen's κ, whether it clears the trust bar, and every disagreement listed.
 *
 * Only people's pass/fail labels (source HUMAN) are the truth here; an answer the judge could not
 * decide (it failed, or replied off-format) is counted apart, never as agreement. Every judged check is
 * carded: the rubric and choice judges (`llm-rubric`, GitHub's `llm`) and the grounded evaluators
 * (hallucination, faithfulness…), these against the passages of the label's test case or of the label.
 */
import { DEFAULT_TRUST_BAR, judgeAgreement, judgeTrusted, type JudgeAgreement, type LabelledPair, type TrustBar } from '../stats/judgeTrust';
import type { Judge } from './judgeChecks';
import { GROUNDED_TYPES } from './assertionTypes';
import { groundingOf, judgeLabelled, labelledQuestion } from './labelledVerdict';
import type { Label } from './labelsFile';
import { suiteAssertions, type Assertion, type TestSuite } from './testCases';
import { VerdictStore } from '../store/verdictStore';

export interface Disagreement {
  line: number;
  human: 'pass' | 'fail';
  judge: 'pass' | 'fail';
  answer: string;
  /** The judge's reason, in its words. */
  reason: string;
}

export interface TrustCard {
  check: string;
  agreement: JudgeAgreement;
  trusted: boolean;
  /** "TPR ≥ 71%, TNR ≥ 91% on 80 labels (40 fail, 40 pass): TPR under the bar of 80% …". */
  why: string;
  /** Labelled answers the judge did not decide, with the first reason. */
  undecided: { count: number; firstReason?: string };
  /** How many labelled answers the judge was asked about now (the rest were kept verdicts). */
  asked: number;
  /** Two people who labelled the same answers of this check: how far they agree (the ceiling a judge can be held to). */
  reviewers?: ReviewerAgreement;
  disagreements: Disagreement[];
}

export interface ReviewerAgreement {
  authors: [string, string];
  /** Answers both labelled pass or fail. */
  shared: number;
  agreement: number | null;
  kappa: number | null;
}

/**
 * Between people: of the reviewers who labelled the same answers of `check`, the pair sharing the most,
 * and their Cohen's κ on those answers. Undefined when no answer was labelled by two people.
 */
export function reviewerAgreement(labels: readonly Label[], check: string): ReviewerAgreement | undefined {
  const byItem = new Map<string, Map<string, 'pass' | 'fail'>>();
  for (const l of humanVerdicts(labels, check)) {
    const key = `${JSON.stringify(l.vars)}\u0000${l.answer}`;
    const item = byItem.get(key) ?? new Map<string, 'pass' | 'fail'>();
    item.set(l.author, l.label); // a reviewer's later label of the same answer wins
    byItem.set(key, item);
  }
  const shared = new Map<string, number>();
  for (const item of byItem.values()) {
    const authors = [...item.keys()].sort();
    for (let i = 0; i < authors.length; i++) for (let j = i + 1; j < authors.length; j++) {
      const pair = JSON.stringify([authors[i], authors[j]]);
      shared.set(pair, (shared.get(pair) ?? 0) + 1);
    }
  }
  const best = [...shared.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  if (!best) return undefined;
  const [a, b] = JSON.parse(best[0]) as [string, string];
  const pairs: LabelledPair[] = [];
  for (const item of byItem.values()) if (item.has(a) && item.has(b)) pairs.push({ human: item.get(a)!, judge: item.get(b)! });
  const agreement = judgeAgreement(pairs);
  return { authors: [a, b], shared: pairs.length, agreement: agreement.accuracy, kappa: agreement.kappa };
}

/** Checks a trust card is made for: every check a judge decides — the rubric and choice judges and the grounded evaluators. */
export const CARDED_TYPES: ReadonlySet<Assertion['type']> = new Set(['llm-rubric', 'llm-choice', ...GROUNDED_TYPES]);

/** The judged checks of a suite (every answer's and each case's), each once by name. */
export function judgedChecks(suite: TestSuite): Assertion[] {
  const byName = new Map<string, Assertion>();
  for (const assertion of suiteAssertions(suite)) {
    if (CARDED_TYPES.has(assertion.type) && !byName.has(assertion.label)) byName.set(assertion.label, assertion);
  }
  return [...byName.values()];
}

/** The labels that are the truth for `check`: people's pass/fail verdicts on it. */
export function humanVerdicts(labels: readonly Label[], check: string): (Label & { label: 'pass' | 'fail' })[] {
  return labels.filter((l): l is Label & { label: 'pass' | 'fail' } => l.check === check && l.source === 'HUMAN' && (l.label === 'pass' || l.label === 'fail'));
}

export interface TrustCardOptions {
  bar?: TrustBar;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /**
   * The judge's earlier verdicts (store/verdictStore.ts), with the judge's identity (model and endpoint):
   * a label whose check, inputs, answer and judge are unchanged is not asked again. Verdicts the judge
   * did not reach are never kept.
   */
  cache?: { store: VerdictStore; judgeId: string };
  /** The tests the labels are of: a grounded check is judged against the passages of the case with the label's inputs. */
  suite?: TestSuite;
}

export async function trustCardOf(assertion: Assertion, labels: readonly Label[], judge: Judge, options: TrustCardOptions = {}): Promise<TrustCard> {
  const truth = humanVerdicts(labels, assertion.label);
  const pairs: LabelledPair[] = [];
  const disagreements: Disagreement[] = [];
  let undecided = 0;
  let asked = 0;
  let firstReason: string | undefined;
  for (const [index, label] of truth.entries()) {
    if (options.signal?.aborted) break;
    const grounding = groundingOf(options.suite, assertion, label.vars);
    const key = options.cache ? VerdictStore.key(assertion, label.answer, { question: labelledQuestion(assertion, label, grounding), judge: options.cache.judgeId }) : undefined;
    const kept = key ? options.cache!.store.get(key) : undefined;
    let judgeSays: 'pass' | 'fail';
    let reason: string;
    if (kept) {
      judgeSays = kept.status;
      reason = `the judge said ${kept.status} when asked earlier (kept verdict)`;
    } else {
      const verdict = await judgeLabelled(assertion, label, judge, grounding);
      asked++;
      if (!verdict.decided) {
        options.onProgress?.(index + 1, truth.length);
        undecided++;
        firstReason ??= verdict.reason;
        continue;
      }
      judgeSays = verdict.says;
      reason = verdict.reason;
      if (key) options.cache!.store.set(key, { status: judgeSays });
    }
    options.onProgress?.(index + 1, truth.length);
    pairs.push({ human: label.label, judge: judgeSays });
    if (judgeSays !== label.label) disagreements.push({ line: label.line, human: label.label, judge: judgeSays, answer: label.answer, reason });
  }
  const agreement = judgeAgreement(pairs);
  const { trusted, why } = judgeTrusted(agreement, options.bar ?? DEFAULT_TRUST_BAR);
  const reviewers = reviewerAgreement(labels, assertion.label);
  return { check: assertion.label, agreement, trusted, why, undecided: { count: undecided, ...(firstReason ? { firstReason } : {}) }, asked, disagreements, ...(reviewers ? { reviewers } : {}) };
}
