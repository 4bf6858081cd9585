/**
 * Stage 3 of a comparison: every run scored with the judging test cases, and the figures per
 * revision. A run that could not be scored — it failed (connection refused, timeout), or an
 * assertion could not be decided (no judge configured, a judge that failed) — is UNSCORED with its
 * reason: it is neither a pass nor a 0, and adherence rests on the scored runs only.
 */
import { chainSummary } from '../metrics/summary';
import type { Passage } from '../retrieval/retrievalStep';
import { retrievedOf } from '../run/retrievalRun';
import { judgedChecks } from '../adherence/trustCard';
import type { RunCheck } from '../adherence/runChecks';
import { scoreRun, type CaseScore, type Judge } from '../adherence/score';
import type { TestCase, TestSuite } from '../adherence/testCases';
import { CLAIMS_AGAINST_CONTEXT } from '../adherence/assertionTypes';
import { isNumber, outputTokensPerSec, percentileTriple } from '../metrics/summary';
import type { RunRecord } from '../metrics/runRecord';
import { wilsonInterval } from '../stats/proportions';
import type { Cell } from './comparePlan';
import type { CaseRuns, CaseSeries, RevisionResult, RunDetail } from './revisionResult';
import { adherenceVerdict, latencyVerdict, MIN_RUNS_FOR_CLAIM, type Verdict } from '../stats/verdicts';

/** Runs per test case and revision whose answer and assertion outcomes are kept for the panel, CLI and report. */
export const RUN_DETAILS_PER_CASE = 20;
/** Characters of each answer kept in those details. */
export const ANSWER_EXCERPT_CHARS = 2000;

/** Fills `result` from its cells' runs; returns whether any run was simulated. */
export async function assessRevision(result: RevisionResult, cells: readonly Cell[], suite: TestSuite, judge: Judge | undefined, onScored?: (record: RunRecord, check: RunCheck) => void): Promise<boolean> {
  let simulated = false;
  const records: RunRecord[] = [];
  const hallucination = { seen: false, hallucinated: 0, judged: 0, undetermined: 0 };
  const judgedLabels = new Set(judgedChecks(suite).map((a) => a.label));
  for (const cell of cells) {
    const testCase = suite.cases[cell.caseIndex]!;
    result.runsReused += cell.reused.length;
    result.runsNew += cell.fresh.length;
    for (const r of cell.reused) if (!result.reusedSince || r.at < result.reusedSince) result.reusedSince = r.at;
    const runs: { record: RunRecord; answer: string; retrieved?: Passage[] }[] = [...cell.reused.map((r) => ({ record: r.run, answer: r.answer })), ...cell.fresh.map((o) => ({ record: o.record, answer: o.text.answer, ...(retrievedOf(o) ? { retrieved: retrievedOf(o)! } : {}) }))];
    const caseRuns: CaseRuns = { description: testCase.description, passed: 0, total: 0, unscored: 0, runs: [] };
    const series: CaseSeries = { passed: [], ttftMs: [], e2eMs: [], tokensPerSec: [], hallucinated: [] };
    result.series.push(series);
    for (const run of runs) {
      if (run.record.simulated) simulated = true;
      records.push(run.record);
      const detail = await scoreOne(testCase, run.record, run.answer, judge, run.retrieved);
      onScored?.(run.record, checkOf(testCase, detail));
      series.passed.push(detail.status === 'unscored' ? null : detail.status === 'pass');
      series.hallucinated.push(detail.hallucinated ?? null);
      const ok = run.record.ok;
      series.ttftMs.push(ok && isNumber(run.record.ttftMs) ? run.record.ttftMs : null);
      series.e2eMs.push(ok && isNumber(run.record.e2eMs) ? run.record.e2eMs : null);
      const tokensPerSec = ok ? outputTokensPerSec(run.record) : null;
      series.tokensPerSec.push(isNumber(tokensPerSec) ? tokensPerSec : null);
      if (detail.status === 'unscored') {
        caseRuns.unscored++;
        result.unscoredReasons[detail.reason!] = (result.unscoredReasons[detail.reason!] ?? 0) + 1;
      } else {
        caseRuns.total++;
        if (detail.status === 'pass') caseRuns.passed++;
      }
      if (detail.hallucinated !== undefined) {
        hallucination.seen = true;
        if (detail.hallucinated === null) hallucination.undetermined++;
        else {
          hallucination.judged++;
          if (detail.hallucinated) hallucination.hallucinated++;
        }
      }
      for (const a of detail.assertions) {
        // A judged check's decided outcomes: its pass rate, which a trust card can correct for the judge's error.
        if (!judgedLabels.has(a.label) || a.outcome === 'undecided') continue;
        const counts = ((result.judgedChecks ??= Object.create(null) as Record<string, { passed: number; judged: number }>)[a.label] ??= { passed: 0, judged: 0 });
        counts.judged++;
        if (a.outcome === 'pass') counts.passed++;
      }
      if (caseRuns.runs.length < RUN_DETAILS_PER_CASE) caseRuns.runs.push(detail);
    }
    result.perCase.push(caseRuns);
  }
  const passed = result.perCase.reduce((s, c) => s + c.passed, 0);
  const scored = result.perCase.reduce((s, c) => s + c.total, 0);
  const unscored = result.perCase.reduce((s, c) => s + c.unscored, 0);
  result.adherence = { passed, total: scored, unscored, rate: scored > 0 ? passed / scored : null, ci95: scored > 0 ? wilsonInterval(passed, scored) : null };
  if (hallucination.seen) {
    const { hallucinated, judged, undetermined } = hallucination;
    result.hallucination = { hallucinated, judged, undetermined, rate: judged > 0 ? hallucinated / judged : null, ci95: judged > 0 ? wilsonInterval(hallucinated, judged) : null };
  }
  const ok = records.filter((r) => r.ok);
  result.failedRuns = records.length - ok.length;
  const firstFailure = records.find((r) => !r.ok)?.error;
  if (firstFailure) result.failureSample = `${firstFailure.kind}: ${firstFailure.message}`;
  result.ttftValues = ok.map((r) => r.ttftMs).filter(isNumber);
  result.e2eValues = ok.map((r) => r.e2eMs).filter(isNumber);
  result.tpotValues = ok.map((r) => r.tpotMs).filter(isNumber);
  result.tokensPerSecValues = ok.map(outputTokensPerSec).filter(isNumber);
  result.ttftMs = percentileTriple(result.ttftValues);
  result.e2eMs = percentileTriple(result.e2eValues);
  const chain = chainSummary(records);
  if (chain) result.chain = chain;
  return simulated;
}

/** A run's detail as ▶ Run's check (the shape telemetry turns into evaluation events). */
function checkOf(testCase: TestCase, detail: RunDetail): RunCheck {
  return {
    status: detail.status,
    ...(detail.reason ? { reason: detail.reason } : {}),
    caseName: testCase.description,
    failed: detail.assertions.filter((a) => a.outcome !== 'pass').map((a) => ({ label: a.label, reason: a.reason, outcome: a.outcome === 'fail' ? 'fail' : 'unscored' })),
  };
}

async function scoreOne(testCase: TestCase, record: RunRecord, answer: string, judge: Judge | undefined, retrieved?: Passage[]): Promise<RunDetail> {
  const excerpt = answer.length > ANSWER_EXCERPT_CHARS ? `${answer.slice(0, ANSWER_EXCERPT_CHARS)}… (${answer.length} characters in all)` : answer;
  if (!record.ok) {
    const reason = `the run failed${record.error ? ` (${record.error.kind}: ${record.error.message})` : ''}`;
    return { status: 'unscored', reason, answer: excerpt, assertions: [] };
  }
  // A fresh run of a prompt with a retrieval step is judged against the passages it was given.
  const score = await scoreRun(testCase, { answer, ok: true, ttftMs: record.ttftMs, e2eMs: record.e2eMs, ...(retrieved ? { retrieved } : {}) }, judge);
  const assertions = score.results.map((r) => ({ label: r.label, outcome: r.outcome, reason: r.reason }));
  const status = score.status;
  const reason = status === 'unscored' ? unscoredReason(score, assertions) : undefined;
  const hallucinated = hallucinationOf(testCase, score);
  return { status, ...(reason ? { reason } : {}), answer: excerpt, assertions, ...(hallucinated !== undefined ? { hallucinated } : {}) };
}

/** Whether a run hallucinated: any claims-against-context assertion found it; null when one could not be judged and none found it. */
function hallucinationOf(testCase: TestCase, score: CaseScore): boolean | null | undefined {
  const results = score.results.filter((_, i) => CLAIMS_AGAINST_CONTEXT.has(testCase.assertions[i]!.type));
  if (results.length === 0) return undefined;
  if (results.some((r) => r.grounded?.hallucinated === true)) return true;
  return results.some((r) => r.outcome === 'undecided') ? null : false;
}

function unscoredReason(score: CaseScore, assertions: RunDetail['assertions']): string {
  if (score.unscoredReason) return score.unscoredReason;
  const undecided = assertions.find((a) => a.outcome === 'undecided');
  return undecided ? `${undecided.label}: ${undecided.reason}` : 'the run could not be scored';
}

/** Each later revision against the first: adherence (scored runs only), TTFT and E2E. */
export function comparisonVerdicts(revisions: readonly RevisionResult[]): Verdict[] {
  const verdicts: Verdict[] = [];
  const [base, ...heads] = revisions;
  if (!base) return verdicts;
  for (const head of heads) {
    verdicts.push(adherenceVerdict({ rev: base.rev, ...base.adherence }, { rev: head.rev, ...head.adherence }));
    verdicts.push(latencyVerdict('ttftMs', { rev: base.rev, values: base.ttftValues }, { rev: head.rev, values: head.ttftValues }));
    verdicts.push(latencyVerdict('e2eMs', { rev: base.rev, values: base.e2eValues }, { rev: head.rev, values: head.e2eValues }));
  }
  return verdicts;
}

export interface Evidence {
  sufficient: boolean;
  reasons: string[];
}

/** Whether the runs can carry a decision: enough succeeded and could be scored on every revision. */
export function judgeEvidence(revisions: readonly RevisionResult[], verdicts: readonly Verdict[], cancelled: boolean): Evidence {
  const reasons: string[] = [];
  if (cancelled) reasons.push('the comparison was cancelled before all runs finished');
  for (const r of revisions) {
    if (r.error) reasons.push(r.error);
    const total = r.runsNew + r.runsReused;
    const succeeded = total - r.failedRuns;
    if (succeeded < MIN_RUNS_FOR_CLAIM) reasons.push(`${r.label}: ${succeeded} of ${total} runs succeeded (${MIN_RUNS_FOR_CLAIM} needed)${r.failureSample ? `; the first failure: ${r.failureSample}` : ''}`);
    else if (r.adherence.total < MIN_RUNS_FOR_CLAIM) reasons.push(`${r.label}: ${r.adherence.total} of ${total} runs could be scored (${MIN_RUNS_FOR_CLAIM} needed); ${unscoredSummary(r)}`);
  }
  for (const v of verdicts) if (v.metric === 'adherence' && v.verdict === 'insufficient') reasons.push(v.summary);
  return { sufficient: reasons.length === 0, reasons: [...new Set(reasons)] };
}

/** `12 unscored: 10 × llm-rubric: no judge configured, 2 × the run failed (timeout…)`. */
export function unscoredSummary(r: RevisionResult): string {
  const entries = Object.entries(r.unscoredReasons).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return 'none unscored';
  return `${r.adherence.unscored} unscored: ${entries.slice(0, 3).map(([reason, n]) => `${n} × ${reason}`).join('; ')}${entries.length > 3 ? '; …' : ''}`;
}
