/**
 * Revision comparison: chosen revisions × test cases × N repeats against one endpoint. Runs already
 * in the store under the same key (prompt content with the case's variables, endpoint, model,
 * parameters) are reused unless `fresh`; answers are scored with the current test cases, so every
 * revision is judged by the same rules. Result: adherence with Wilson intervals, latency
 * percentiles, per-case matrix, verdicts of each revision against the first, and the prompt diff.
 */
import type { CacheMode } from '../endpoint/serverKind';
import { scoreRun, type Judge } from '../adherence/score';
import type { TestSuite } from '../adherence/testCases';
import type { RunOutcome } from '../endpoint/runOnce';
import type { ChatTransport } from '../endpoint/transport';
import { summarize } from '../metrics/summary';
import type { RunRecord } from '../metrics/runRecord';
import { executePromptRuns, planPromptRun } from '../run/promptRun';
import { storeNotice, type ResultsStore, type StoredRun } from '../store/resultsStore';
import { runKeyOf, runKeyString, safeUrl } from '../store/runKey';
import { wilsonInterval } from '../stats/proportions';
import { lineDiff, type DiffLine } from './lineDiff';
import { adherenceVerdict, latencyVerdict, MIN_RUNS_FOR_CLAIM, noRegression, type Verdict } from './verdicts';

export interface RevisionSource {
  rev: string;
  /** Short name for charts: a commit's short id, 'working copy', 'unsaved buffer'. */
  label: string;
  path: string;
  text: string;
  date?: string;
  author?: string;
  subject?: string;
}

export interface CompareOptions {
  file: string;
  promptName?: string;
  revisions: RevisionSource[];
  suite: TestSuite;
  runsPerCase: number;
  transport: ChatTransport;
  modelOverride?: string;
  store?: ResultsStore;
  fresh: boolean;
  timeoutMs: number;
  concurrency: number;
  /** Prompt cache during fresh runs (default cold: both revisions measured without the server's prefix cache). */
  cache?: CacheMode;
  signal?: AbortSignal;
  judge?: Judge;
  onProgress?: (done: number, total: number, message: string) => void;
}

export interface PercentileTriple {
  p50: number | null;
  p90: number | null;
  p99: number | null;
  n: number;
}

export interface RevisionResult {
  rev: string;
  label: string;
  path: string;
  date?: string;
  author?: string;
  subject?: string;
  tokens: number | null;
  adherence: { passed: number; total: number; rate: number | null; ci95: [number, number] | null };
  ttftMs: PercentileTriple;
  e2eMs: PercentileTriple;
  perCase: { description: string; passed: number; total: number }[];
  runsReused: number;
  runsNew: number;
  failedRuns: number;
  /** What the first failed run said, for the evidence reasons. */
  failureSample?: string;
  /** Why this revision could not be measured (no prompt at it, cancelled…). */
  error?: string;
  /** Raw latencies, for the verdicts (not part of the CLI JSON). */
  ttftValues: number[];
  e2eValues: number[];
}

export interface ComparisonResult {
  file: string;
  prompt: string;
  endpoint: string;
  model: string;
  simulated: boolean;
  runsPerCase: number;
  cases: string[];
  suiteSource: string;
  problems: string[];
  revisions: RevisionResult[];
  verdicts: Verdict[];
  noRegression: boolean;
  /**
   * Whether the runs can carry a decision at all. A gate fails closed: when every run of a revision
   * failed (a 401, a dead endpoint), "no significant difference" is no evidence of no regression.
   */
  evidence: Evidence;
  /** Prompt diff between the first and the last revision. */
  diff?: { base: string; head: string; lines: DiffLine[] | null };
  cancelled: boolean;
}

export async function compareRevisions(options: CompareOptions): Promise<ComparisonResult> {
  const { suite, runsPerCase } = options;
  const total = options.revisions.length * suite.cases.length * runsPerCase;
  let done = 0;
  let model = options.modelOverride ?? options.transport.endpoint.model ?? '';
  let promptName = options.promptName ?? '';
  let simulated = options.transport.endpoint.simulated === true;
  // Cancelled runs are never reused: they say nothing about the prompt.
  const storeContents = options.store && !options.fresh ? options.store.read((r) => r.run.error?.kind !== 'cancelled') : undefined;
  const stored = storeContents ? indexStore(storeContents.records) : new Map<string, StoredRun[]>();
  const storeProblem = storeContents && options.store ? storeNotice(options.store.path, storeContents) : undefined;
  const judgeCache = new Map<string, Promise<string>>();
  const judge: Judge | undefined = options.judge
    ? (messages) => {
        const key = JSON.stringify(messages);
        let reply = judgeCache.get(key);
        if (!reply) judgeCache.set(key, (reply = options.judge!(messages)));
        return reply;
      }
    : undefined;
  const revisions: RevisionResult[] = [];
  for (const revision of options.revisions) {
    const result: RevisionResult = {
      rev: revision.rev, label: revision.label, path: revision.path,
      ...(revision.date ? { date: revision.date } : {}), ...(revision.author ? { author: revision.author } : {}), ...(revision.subject ? { subject: revision.subject } : {}),
      tokens: null, adherence: { passed: 0, total: 0, rate: null, ci95: null }, ttftMs: { p50: null, p90: null, p99: null, n: 0 }, e2eMs: { p50: null, p90: null, p99: null, n: 0 },
      perCase: [], runsReused: 0, runsNew: 0, failedRuns: 0, ttftValues: [], e2eValues: [],
    };
    revisions.push(result);
    const records: RunRecord[] = [];
    for (const [caseIndex, testCase] of suite.cases.entries()) {
      if (options.signal?.aborted) break;
      let plan;
      try {
        plan = await planPromptRun(options.file, revision.text, {
          ...(options.promptName !== undefined ? { promptName: options.promptName } : {}),
          ...(options.modelOverride ? { modelOverride: options.modelOverride } : {}),
          ...(options.transport.endpoint.model ? { endpointModel: options.transport.endpoint.model } : {}),
          vars: testCase.vars,
        });
      } catch (error) {
        result.error = `${revision.label}: ${(error as Error).message}`;
        done += runsPerCase * (suite.cases.length - caseIndex);
        break;
      }
      promptName ||= plan.prompt.name;
      model = plan.request.model;
      if (caseIndex === 0) {
        const sample = await planPromptRun(options.file, revision.text, { ...(options.promptName !== undefined ? { promptName: options.promptName } : {}), endpointModel: plan.request.model }).catch(() => undefined);
        result.tokens = sample?.inputTokensEstimate ?? plan.inputTokensEstimate;
      }
      const key = runKeyString(runKeyOf(options.transport.endpoint, plan.request));
      const reused = (stored.get(key) ?? []).slice(-runsPerCase);
      const missing = runsPerCase - reused.length;
      let fresh: RunOutcome[] = [];
      if (missing > 0) {
        const executed = await executePromptRuns(options.transport, plan, {
          runs: missing, concurrency: options.concurrency, warmup: 0, timeoutMs: options.timeoutMs,
          ...(options.cache ? { cache: options.cache } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.store ? { store: options.store } : {}),
          revision: revision.rev, testCase: caseIndex,
          onRun: () => options.onProgress?.(++done, total, `${revision.label} · ${testCase.description}`),
        });
        fresh = executed.outcomes.filter((o) => o.record.error?.kind !== 'cancelled');
      }
      done += reused.length;
      options.onProgress?.(done, total, `${revision.label} · ${testCase.description}`);
      result.runsReused += reused.length;
      result.runsNew += fresh.length;
      const runs = [...reused.map((r) => ({ record: r.run, answer: r.answer })), ...fresh.map((o) => ({ record: o.record, answer: o.text.answer }))];
      let passed = 0;
      for (const run of runs) {
        if (run.record.simulated) simulated = true;
        const score = await scoreRun(testCase, { answer: run.answer, ok: run.record.ok, ttftMs: run.record.ttftMs, e2eMs: run.record.e2eMs, ...(run.record.error ? { errorMessage: run.record.error.message } : {}) }, judge);
        if (score.pass) passed++;
        records.push(run.record);
      }
      result.perCase.push({ description: testCase.description, passed, total: runs.length });
    }
    const passed = result.perCase.reduce((s, c) => s + c.passed, 0);
    const totalRuns = result.perCase.reduce((s, c) => s + c.total, 0);
    result.adherence = { passed, total: totalRuns, rate: totalRuns > 0 ? passed / totalRuns : null, ci95: totalRuns > 0 ? wilsonInterval(passed, totalRuns) : null };
    const ok = records.filter((r) => r.ok);
    result.failedRuns = records.length - ok.length;
    const firstFailure = records.find((r) => !r.ok)?.error;
    if (firstFailure) result.failureSample = `${firstFailure.kind}: ${firstFailure.message}`;
    result.ttftValues = ok.map((r) => r.ttftMs!).filter((v) => v !== null);
    result.e2eValues = ok.map((r) => r.e2eMs!).filter((v) => v !== null);
    result.ttftMs = triple(result.ttftValues);
    result.e2eMs = triple(result.e2eValues);
  }
  const verdicts: Verdict[] = [];
  const [base, ...heads] = revisions;
  if (base) {
    for (const head of heads) {
      verdicts.push(adherenceVerdict({ rev: base.rev, ...base.adherence }, { rev: head.rev, ...head.adherence }));
      verdicts.push(latencyVerdict('ttftMs', { rev: base.rev, values: base.ttftValues }, { rev: head.rev, values: head.ttftValues }));
      verdicts.push(latencyVerdict('e2eMs', { rev: base.rev, values: base.e2eValues }, { rev: head.rev, values: head.e2eValues }));
    }
  }
  const first = options.revisions[0];
  const last = options.revisions[options.revisions.length - 1];
  return {
    file: options.file,
    prompt: promptName,
    endpoint: safeUrl(options.transport.endpoint.baseUrl),
    model,
    simulated,
    runsPerCase,
    cases: suite.cases.map((c) => c.description),
    suiteSource: suite.source,
    problems: storeProblem ? [...suite.problems, storeProblem] : suite.problems,
    revisions,
    verdicts,
    noRegression: noRegression(verdicts),
    evidence: judgeEvidence(revisions, verdicts, options.signal?.aborted === true),
    ...(first && last && first !== last ? { diff: { base: first.label, head: last.label, lines: lineDiff(first.text, last.text) ?? null } } : {}),
    cancelled: options.signal?.aborted === true,
  };
}

export interface Evidence {
  sufficient: boolean;
  reasons: string[];
}

function judgeEvidence(revisions: readonly RevisionResult[], verdicts: readonly Verdict[], cancelled: boolean): Evidence {
  const reasons: string[] = [];
  if (cancelled) reasons.push('the comparison was cancelled before all runs finished');
  for (const r of revisions) {
    if (r.error) reasons.push(r.error);
    const total = r.runsNew + r.runsReused;
    const succeeded = total - r.failedRuns;
    if (succeeded < MIN_RUNS_FOR_CLAIM) reasons.push(`${r.label}: ${succeeded} of ${total} runs succeeded (${MIN_RUNS_FOR_CLAIM} needed)${r.failureSample ? `; the first failure: ${r.failureSample}` : ''}`);
  }
  for (const v of verdicts) if (v.metric === 'adherence' && v.verdict === 'insufficient') reasons.push(v.summary);
  return { sufficient: reasons.length === 0, reasons: [...new Set(reasons)] };
}

function triple(values: number[]): PercentileTriple {
  const s = summarize(values);
  return { p50: s.p50, p90: s.p90, p99: s.p99, n: s.n };
}

function indexStore(records: readonly StoredRun[]): Map<string, StoredRun[]> {
  const byKey = new Map<string, StoredRun[]>();
  for (const record of records) {
    const key = runKeyString(record.key);
    let list = byKey.get(key);
    if (!list) byKey.set(key, (list = []));
    list.push(record);
  }
  return byKey;
}
