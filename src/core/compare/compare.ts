/**
 * Revision comparison: chosen revisions × test cases × N repeats against one endpoint. Runs already
 * in the store under the same key (prompt content with the case's variables, endpoint, model,
 * parameters) are reused unless `fresh`; answers are scored with the current test cases, so every
 * revision is judged by the same rules. Result: adherence with Wilson intervals, latency
 * percentiles, per-case matrix, verdicts of each revision against the first, and the prompt diff.
 */
import { basename } from 'node:path';
import type { CacheMode } from '../endpoint/serverKind';
import { decideRollout, type RolloutDecision, type RolloutSide } from '../rollout/decision';
import { resolvePolicy, type PolicySources, type RolloutPolicy } from '../rollout/scenario';
import { scoreRun, type Judge } from '../adherence/score';
import type { TestSuite } from '../adherence/testCases';
import type { RunOutcome } from '../endpoint/runOnce';
import type { ChatTransport } from '../endpoint/transport';
import { isNumber, outputTokensPerSec, summarize } from '../metrics/summary';
import type { MetricsSample } from '../endpoint/serverMetrics';
import type { RunRecord } from '../metrics/runRecord';
import { executeRunJobs, planPromptRun, type PromptRunPlan, type RunJob } from '../run/promptRun';
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
  /** Scenario and SLOs from outside the files (`--scenario`, `--slo`, the setting); the files' own are read here. */
  policy?: Pick<PolicySources, 'cliScenario' | 'cliSlo' | 'settingScenario' | 'prompt'>;
  /** Stored runs older than this (ms) are measured again (default 24 h). */
  freshnessMs?: number;
  /** Order of the interleaved fresh runs (default Math.random); tests pass a seeded one. */
  random?: () => number;
  now?: () => number;
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
  /** ISO time of the oldest stored run reused, when any were. */
  reusedSince?: string;
  /** Raw per-run values, for the verdicts and SLOs (not part of the CLI JSON). */
  ttftValues: number[];
  e2eValues: number[];
  tpotValues: number[];
  /** Output tokens / E2E per run. */
  tokensPerSecValues: number[];
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
  /** The scenario and SLOs the decision followed, and where they came from. */
  policy: RolloutPolicy;
  /** The decision for the last revision against the first; null with one revision. */
  rollout: RolloutDecision | null;
  /** The fresh runs on one clock (ms from the batch's start) with the server's metrics over the same time; null when every run was reused. */
  timeline: { serverKind: string; runs: { t: number; revision: string; ttftMs: number | null; ok: boolean }[]; serverMetrics: MetricsSample[]; metricsGaps: number } | null;
}

/** Stored runs older than this are not reused by default: the server, its load and its version move on. */
export const DEFAULT_FRESHNESS_MS = 24 * 60 * 60 * 1000;

/** One revision × test case that could be planned: its plan, and the runs it has. */
interface Cell {
  revision: number;
  caseIndex: number;
  plan: PromptRunPlan;
  reused: StoredRun[];
  fresh: RunOutcome[];
}

export async function compareRevisions(options: CompareOptions): Promise<ComparisonResult> {
  const { suite, runsPerCase } = options;
  const now = options.now?.() ?? Date.now();
  const freshnessMs = options.freshnessMs ?? DEFAULT_FRESHNESS_MS;
  const cacheMode = options.cache ?? 'cold';
  let model = options.modelOverride ?? options.transport.endpoint.model ?? '';
  let promptName = options.promptName ?? '';
  let simulated = options.transport.endpoint.simulated === true;
  // Cancelled runs are never reused: they say nothing about the prompt. Nor are stale ones, or ones
  // measured with the prefix cache in another state than this comparison asks for.
  const storeContents =
    options.store && !options.fresh
      ? options.store.read((r) => r.run.error?.kind !== 'cancelled' && now - Date.parse(r.at) <= freshnessMs && cacheStateFits(r.run.cache, cacheMode))
      : undefined;
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

  // 1. Plan every revision × case, and take what the store already has.
  const revisions: RevisionResult[] = [];
  const cells: Cell[] = [];
  for (const [revisionIndex, revision] of options.revisions.entries()) {
    const result: RevisionResult = {
      rev: revision.rev, label: revision.label, path: revision.path,
      ...(revision.date ? { date: revision.date } : {}), ...(revision.author ? { author: revision.author } : {}), ...(revision.subject ? { subject: revision.subject } : {}),
      tokens: null, adherence: { passed: 0, total: 0, rate: null, ci95: null }, ttftMs: { p50: null, p90: null, p99: null, n: 0 }, e2eMs: { p50: null, p90: null, p99: null, n: 0 },
      perCase: [], runsReused: 0, runsNew: 0, failedRuns: 0, ttftValues: [], e2eValues: [], tpotValues: [], tokensPerSecValues: [],
    };
    revisions.push(result);
    for (const [caseIndex, testCase] of suite.cases.entries()) {
      let plan: PromptRunPlan;
      try {
        plan = await planPromptRun(options.file, revision.text, {
          ...(options.promptName !== undefined ? { promptName: options.promptName } : {}),
          ...(options.modelOverride ? { modelOverride: options.modelOverride } : {}),
          ...(options.transport.endpoint.model ? { endpointModel: options.transport.endpoint.model } : {}),
          vars: testCase.vars,
        });
      } catch (error) {
        result.error = `${revision.label}: ${(error as Error).message}`;
        break;
      }
      promptName ||= plan.prompt.name;
      model = plan.request.model;
      if (caseIndex === 0) {
        const sample = await planPromptRun(options.file, revision.text, { ...(options.promptName !== undefined ? { promptName: options.promptName } : {}), endpointModel: plan.request.model }).catch(() => undefined);
        result.tokens = sample?.inputTokensEstimate ?? plan.inputTokensEstimate;
      }
      const key = runKeyString(runKeyOf(options.transport.endpoint, plan.request));
      cells.push({ revision: revisionIndex, caseIndex, plan, reused: (stored.get(key) ?? []).slice(-runsPerCase), fresh: [] });
    }
  }

  // The policy is checked before any run: a misspelt scenario or SLO is an error, not a silent default.
  // The prompt's own declaration: as the caller read it from the current file, else the head revision's.
  const headPlan = cells[cells.length - 1]?.plan;
  const policy = resolvePolicy({
    ...options.policy,
    ...(!options.policy?.prompt && headPlan?.prompt.rollout ? { prompt: { where: basename(options.file), ...headPlan.prompt.rollout } } : {}),
    ...(suite.rollout ? { tests: { where: suite.source, ...suite.rollout } } : {}),
  });

  // 2. The missing runs of every revision, interleaved in random order: one time window, one load.
  const jobs: { cell: Cell; job: RunJob }[] = [];
  for (const cell of cells) {
    for (let i = cell.reused.length; i < runsPerCase; i++) jobs.push({ cell, job: { plan: cell.plan, revision: options.revisions[cell.revision]!.rev, testCase: cell.caseIndex } });
  }
  shuffle(jobs, options.random ?? Math.random);
  const total = jobs.length;
  let timeline: ComparisonResult['timeline'] = null;
  if (jobs.length > 0 && !options.signal?.aborted) {
    const executed = await executeRunJobs(options.transport, jobs.map((j) => j.job), {
      concurrency: options.concurrency, warmup: 0, timeoutMs: options.timeoutMs,
      cache: cacheMode,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.store ? { store: options.store } : {}),
      onRun: (_outcome, finished, jobIndex) => {
        const { cell } = jobs[jobIndex]!;
        options.onProgress?.(finished, total, `${options.revisions[cell.revision]!.label} · ${suite.cases[cell.caseIndex]!.description}`);
      },
    });
    executed.outcomes.forEach((outcome, i) => {
      if (outcome.record.error?.kind === 'cancelled') return;
      jobs[executed.jobOf[i]!]!.cell.fresh.push(outcome);
    });
    timeline = {
      serverKind: executed.serverKind,
      runs: executed.outcomes.map((outcome, i) => {
        const cell = jobs[executed.jobOf[i]!]!.cell;
        return { t: executed.startedAt[i]!, revision: options.revisions[cell.revision]!.rev, ttftMs: outcome.record.ttftMs, ok: outcome.record.ok };
      }),
      serverMetrics: executed.serverMetrics ? executed.serverMetrics.samples : [],
      metricsGaps: executed.serverMetrics?.gaps.length ?? 0,
    };
  }

  // 3. Score every run with the current test cases; figures per revision.
  for (const [revisionIndex, result] of revisions.entries()) {
    const records: RunRecord[] = [];
    for (const cell of cells.filter((c) => c.revision === revisionIndex)) {
      const testCase = suite.cases[cell.caseIndex]!;
      result.runsReused += cell.reused.length;
      result.runsNew += cell.fresh.length;
      for (const r of cell.reused) if (!result.reusedSince || r.at < result.reusedSince) result.reusedSince = r.at;
      const runs = [...cell.reused.map((r) => ({ record: r.run, answer: r.answer })), ...cell.fresh.map((o) => ({ record: o.record, answer: o.text.answer }))];
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
    result.ttftValues = ok.map((r) => r.ttftMs).filter(isNumber);
    result.e2eValues = ok.map((r) => r.e2eMs).filter(isNumber);
    result.tpotValues = ok.map((r) => r.tpotMs).filter(isNumber);
    result.tokensPerSecValues = ok.map(outputTokensPerSec).filter(isNumber);
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
  const evidence = judgeEvidence(revisions, verdicts, options.signal?.aborted === true);
  const headResult = revisions[revisions.length - 1];
  const rollout = base && headResult && headResult !== base ? decideRollout({ policy, base: rolloutSide(base), head: rolloutSide(headResult), verdicts, evidence }) : null;
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
    evidence,
    policy,
    rollout,
    ...(first && last && first !== last ? { diff: { base: first.label, head: last.label, lines: lineDiff(first.text, last.text) ?? null } } : {}),
    cancelled: options.signal?.aborted === true,
    timeline,
  };
}

/** A revision's runs as the rollout decision reads them. */
export function rolloutSide(r: RevisionResult): RolloutSide {
  return { rev: r.rev, label: r.label, ttftMs: r.ttftValues, e2eMs: r.e2eValues, tpotMs: r.tpotValues, adherence: { passed: r.adherence.passed, total: r.adherence.total }, tokensPerSec: r.tokensPerSecValues };
}

/** Stored runs fit a cold comparison when the server did not serve them from its cache, a warm one when it did. */
function cacheStateFits(state: RunRecord['cache'], mode: CacheMode): boolean {
  if (mode === 'cold') return state !== 'warm';
  if (mode === 'warm') return state === 'warm';
  return true;
}

/** Fisher–Yates, in place. */
function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
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
