/** The JSON view of a comparison: what the CLI prints, the panel draws and the HTML report embeds. */
import type { ComparisonResult } from './compare';
import { objectiveText } from '../rollout/slo';
import { judgedWithLine } from './policyChange';

/** `capacityLines`: `compare --capacity`'s side-by-side capacity (capacityCompare.ts), shown as written. */
export function comparisonView(result: ComparisonResult, extras: { capacityLines?: string[] } = {}) {
  return {
    ...(extras.capacityLines ? { capacity: { lines: extras.capacityLines } } : {}),
    file: result.file,
    prompt: result.prompt,
    endpoint: result.endpoint,
    model: result.model,
    simulated: result.simulated,
    runsPerCase: result.runsPerCase,
    cases: result.cases,
    suiteSource: result.suiteSource,
    problems: result.problems,
    revisions: result.revisions.map((r) => ({
      rev: r.rev, label: r.label, path: r.path,
      ...(r.date ? { date: r.date } : {}), ...(r.author ? { author: r.author } : {}), ...(r.subject ? { subject: r.subject } : {}),
      tokens: r.tokens, adherence: r.adherence, ...(r.hallucination ? { hallucination: r.hallucination } : {}), ...(r.chain ? { chain: r.chain } : {}), unscoredReasons: { ...r.unscoredReasons }, ttftMs: r.ttftMs, e2eMs: r.e2eMs, perCase: r.perCase,
      runsReused: r.runsReused, ...(r.reusedSince ? { reusedSince: r.reusedSince } : {}), runsNew: r.runsNew, failedRuns: r.failedRuns, ...(r.error ? { error: r.error } : {}),
    })),
    verdicts: result.verdicts.map((v) => ({ metric: v.metric, base: v.base, head: v.head, verdict: v.verdict, pValue: v.pValue, difference: v.difference, ci95: v.ci95, test: v.test, summary: v.summary })),
    noRegression: result.noRegression,
    evidence: result.evidence,
    policy: { scenario: result.policy.scenario, scenarioSource: result.policy.scenarioSource, slo: result.policy.objectives.map(objectiveText), from: result.policyOrigin, judgedWith: judgedWithLine(result.policyOrigin, result.policyChanges), retrieval: result.policyRetrieval, changes: result.policyChanges },
    rollout: result.rollout,
    ...(result.judgeTrust ? { judgeTrust: result.judgeTrust.map((o) => ({ check: o.check, trusted: o.trusted, accepted: o.accepted, why: o.why })) } : {}),
    ...(result.correctedRates?.length ? { correctedRates: result.correctedRates } : {}),
    statistics: result.statistics,
    ...(result.untilDecided ? { untilDecided: result.untilDecided } : {}),
    timeline: result.timeline
      ? {
          serverKind: result.timeline.serverKind,
          runs: result.timeline.runs,
          server: result.timeline.serverMetrics.map((m) => ({ t: m.t, requestsRunning: m.requestsRunning ?? null, requestsWaiting: m.requestsWaiting ?? null, kvCacheUsage: m.kvCacheUsage ?? null })),
          metricsGaps: result.timeline.metricsGaps,
        }
      : null,
    ...(result.diff ? { diff: result.diff } : {}),
    cancelled: result.cancelled,
  };
}

export type ComparisonView = ReturnType<typeof comparisonView>;
