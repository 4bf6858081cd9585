/**
 * Production numbers per prompt version, from the aggregates: request count, error rate by
 * `error.type`, TTFT/E2E/TPOT percentiles with distribution-free 95% intervals, tokens, cache-read
 * share; and the latest version against the previous one with `compare`'s statistics and verdicts.
 */
import { latencyVerdict, ALPHA, MIN_RUNS_FOR_CLAIM, formatP, type Verdict } from '../stats/verdicts';
import { percentile } from '../stats/percentile';
import { newcombeDifferenceInterval, proportionTest, wilsonInterval } from '../stats/proportions';
import { quantileRanks } from '../stats/quantileInterval';
import type { SkipCounts, ValueSeries, VersionAggregate } from './prodAggregate';
import { matchVersion, type FileVersions, type RegistryReading } from './prodVersions';
import type { SourceSummary } from './prodSources';
import { metricName } from '../text/metricNames';
import { matchTime, type MatchedTime, type MatchMethod } from './matchedHours';
import type { ProdAdherence } from './prodAdherence';

export const PROD_PERCENTILES = [
  ['p50', 0.5],
  ['p90', 0.9],
  ['p99', 0.99],
] as const;

export interface PercentileWithInterval {
  value: number;
  /** 95% distribution-free interval; a side is null when there are too few requests for it. */
  ci95: [number | null, number | null];
}

export interface ProdPercentiles {
  n: number;
  /** Percentiles over a seeded sample (more values than the importer keeps per series). */
  sampled?: true;
  p50: PercentileWithInterval | null;
  p90: PercentileWithInterval | null;
  p99: PercentileWithInterval | null;
}

export interface ProdVersion {
  version: string;
  promptName: string | null;
  /** Git commit (or `working`) this version is, or null when it is not in the file's history. */
  revision: string | null;
  /** How the version was tied to the revision; 'content' when the calls named no version and their messages matched it. */
  matchedBy: 'commit' | 'content-hash' | 'deploy-commit' | 'registry' | 'content' | null;
  inGitHistory: boolean;
  /** Requests per place the version came from (span, ancestor, resource, content) and per convention read. */
  versionFrom?: Record<string, number>;
  /** Every production label counted as this version (its revision's), with its requests, when there are several. */
  labels?: { label: string; requests: number }[];
  sources?: Record<string, number>;
  revisionDate?: string;
  revisionSubject?: string;
  /** First span start / last span end seen (trace files); null from Prometheus, which gives counts over the window. */
  firstSeen: string | null;
  lastSeen: string | null;
  requests: number;
  errors: number;
  errorRate: number;
  errorRateCi95: [number, number];
  errorsByType: Record<string, number>;
  ttftMs: ProdPercentiles;
  e2eMs: ProdPercentiles;
  /** (E2E − TTFT) / (output tokens − 1), vLLM bench serve's TPOT. */
  tpotMs: ProdPercentiles;
  tokens: { input: number; output: number; cacheRead: number; requestsWithUsage: number };
  /** Cache-read input tokens / input tokens, over the requests that reported both; null when none did. */
  cacheReadShare: number | null;
  /** Sampled production answers scored with the prompt's reference-free checks (prodAdherence.ts). */
  adherence?: ProdAdherence;
}

export interface ErrorRateVerdict {
  metric: 'errorRate';
  base: string;
  head: string;
  verdict: 'better' | 'worse' | 'no-difference' | 'insufficient';
  pValue: number | null;
  difference: number | null;
  ci95: [number, number] | null;
  test: 'fisher-exact' | 'two-proportion-z' | null;
  summary: string;
}

export interface ProdComparison {
  base: string;
  head: string;
  /** How the two were put on the same hours (matchedHours.ts): side by side, the same hours of the week, or not at all. */
  matching?: { method: MatchMethod; hours: number; summary: string };
  verdicts: (Verdict | ErrorRateVerdict)[];
}

/** The matched requests behind a comparison (not in its JSON): the production decision judges SLOs on them. */
export const matchedEvidence = new WeakMap<ProdComparison, MatchedTime>();

/** The bootstrap of medians (2000 resamples) is given at most this many values a side, for time. */
const BOOTSTRAP_MAX_VALUES = 2_000;

export function percentilesOf(series: ValueSeries): ProdPercentiles {
  const sorted = series.sorted();
  const n = sorted.length;
  const out: ProdPercentiles = { n: series.seen, p50: null, p90: null, p99: null, ...(series.sampled ? { sampled: true as const } : {}) };
  if (n === 0) return out;
  const values = sorted as unknown as number[];
  for (const [name, p] of PROD_PERCENTILES) {
    if (n < Math.ceil(1 / (1 - p) - 1e-9)) continue;
    const [l, u] = quantileRanks(n, p);
    out[name] = { value: round(percentile(values, p)), ci95: [l === null ? null : round(sorted[l - 1]!), u === null ? null : round(sorted[u - 1]!)] };
  }
  return out;
}

export function versionReport(agg: VersionAggregate, versions: FileVersions | undefined): ProdVersion {
  const match = versions ? matchVersion(agg.version, agg.promptName, versions) : { revision: null, how: null, order: null };
  const errorRateCi95 = wilsonInterval(agg.errors, agg.requests);
  return {
    version: agg.version,
    promptName: agg.promptName,
    revision: match.revision,
    // Every request matched by its messages: the label is the revision content matching chose.
    matchedBy: match.revision !== null && agg.versionFrom.size === 1 && agg.versionFrom.has('content') ? 'content' : match.how,
    inGitHistory: match.revision !== null,
    ...(agg.labels.size > 1 ? { labels: [...agg.labels].sort((a, b) => b[1] - a[1]).map(([label, requests]) => ({ label, requests })) } : {}),
    versionFrom: Object.fromEntries(agg.versionFrom),
    sources: Object.fromEntries(agg.sources),
    ...('date' in match && match.date ? { revisionDate: match.date } : {}),
    ...('subject' in match && match.subject ? { revisionSubject: match.subject } : {}),
    firstSeen: new Date(agg.firstSeenMs).toISOString(),
    lastSeen: new Date(agg.lastSeenMs).toISOString(),
    requests: agg.requests,
    errors: agg.errors,
    errorRate: agg.requests ? agg.errors / agg.requests : 0,
    errorRateCi95,
    errorsByType: Object.fromEntries([...agg.errorsByType].sort((a, b) => b[1] - a[1])),
    ttftMs: percentilesOf(agg.ttftMs),
    e2eMs: percentilesOf(agg.e2eMs),
    tpotMs: percentilesOf(agg.tpotMs),
    tokens: { input: agg.inputTokens, output: agg.outputTokens, cacheRead: agg.cacheReadTokens, requestsWithUsage: agg.withInputTokens },
    cacheReadShare: agg.inputOfCacheReported > 0 ? agg.cacheReadOfReported / agg.inputOfCacheReported : null,
  };
}

/**
 * Versions newest first: by git order when both are in history, else by when production first saw them
 * (a rollout starts a version after its predecessor).
 */
export function orderVersions(versions: ProdVersion[], order: (v: ProdVersion) => number | null): ProdVersion[] {
  return [...versions].sort((a, b) => {
    const oa = order(a);
    const ob = order(b);
    if (oa !== null && ob !== null && oa !== ob) return oa - ob;
    return (b.firstSeen ?? '').localeCompare(a.firstSeen ?? '') || b.requests - a.requests;
  });
}

/** Error rate of head against base: the proportions test `compare` uses for adherence; lower is better. */
export function errorRateVerdict(base: { rev: string; errors: number; total: number }, head: { rev: string; errors: number; total: number }): ErrorRateVerdict {
  const common = { metric: 'errorRate' as const, base: base.rev, head: head.rev };
  if (base.total < MIN_RUNS_FOR_CLAIM || head.total < MIN_RUNS_FOR_CLAIM) {
    return { ...common, verdict: 'insufficient', pValue: null, difference: null, ci95: null, test: null, summary: `error rate: not enough requests (${base.total} and ${head.total}; ${MIN_RUNS_FOR_CLAIM} each needed)` };
  }
  const difference = head.errors / head.total - base.errors / base.total;
  const { pValue, test } = proportionTest(head.errors, head.total, base.errors, base.total);
  const ci95 = newcombeDifferenceInterval(head.errors, head.total, base.errors, base.total);
  const verdict = pValue < ALPHA ? (difference < 0 ? 'better' : 'worse') : 'no-difference';
  const points = `${difference >= 0 ? '+' : ''}${(difference * 100).toFixed(1)} pts`;
  return { ...common, verdict, pValue, difference, ci95, test, summary: verdict === 'no-difference' ? `error rate ${points}, no significant difference (${formatP(pValue)})` : `error rate ${points}, ${formatP(pValue)}` };
}

/**
 * Latest vs previous version over matched time (matchedHours.ts): TTFT and E2E medians (bootstrap, as `compare`)
 * and the error rate, each from the same hours for both. Without matched hours every verdict is insufficient and
 * says why — traffic differs by the hour, so an unmatched comparison would compare the hours.
 */
export function compareVersions(previous: { report: ProdVersion; agg: VersionAggregate }, latest: { report: ProdVersion; agg: VersionAggregate }): ProdComparison {
  const base = previous.report.version;
  const head = latest.report.version;
  const matched = matchTime(previous.agg.hourly, latest.agg.hourly, MIN_RUNS_FOR_CLAIM);
  const matching = { method: matched.method, hours: matched.hours, summary: matched.summary };
  if (matched.method === 'unmatched') {
    const none = (metric: 'ttftMs' | 'e2eMs'): Verdict => ({ metric, base, head, verdict: 'insufficient', pValue: null, difference: null, ci95: null, test: null, summary: `${metricName(metric)}: ${matched.summary}` });
    return { base, head, matching, verdicts: [none('ttftMs'), none('e2eMs'), { metric: 'errorRate', base, head, verdict: 'insufficient', pValue: null, difference: null, ci95: null, test: null, summary: `error rate: ${matched.summary}` }] };
  }
  const values = (v: number[]) => thin(Float64Array.from(v).sort(), BOOTSTRAP_MAX_VALUES);
  const verdicts: (Verdict | ErrorRateVerdict)[] = [
    latencyVerdict('ttftMs', { rev: base, values: values(matched.base.ttftMs) }, { rev: head, values: values(matched.head.ttftMs) }),
    latencyVerdict('e2eMs', { rev: base, values: values(matched.base.e2eMs) }, { rev: head, values: values(matched.head.e2eMs) }),
    errorRateVerdict({ rev: base, errors: matched.base.errors, total: matched.base.requests }, { rev: head, errors: matched.head.errors, total: matched.head.requests }),
  ];
  const comparison = { base, head, matching, verdicts };
  matchedEvidence.set(comparison, matched);
  return comparison;
}

/**
 * At most `max` values, evenly spaced over the sorted ones: the same distribution, so the bootstrap
 * of the median stays seconds long on millions of requests (its interval is then that of `max` requests: conservative).
 */
function thin(sorted: Float64Array, max: number): number[] {
  if (sorted.length <= max) return Array.from(sorted);
  const out: number[] = [];
  for (let i = 0; i < max; i++) out.push(sorted[Math.floor(((i + 0.5) * sorted.length) / max)]!);
  return out;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export interface ProdReport {
  file: string;
  source: { kind: 'otlp-files'; files: string[] } | { kind: 'prometheus'; url: string };
  window: { since: string | null };
  versions: ProdVersion[];
  comparison: ProdComparison | null;
  skipped: SkipCounts;
  /** Per convention read: model calls, TTFT coverage, what was left out and what the source never records (trace files). */
  sources?: SourceSummary[];
  /** Inference spans for prompts this file does not hold, by name (at most 20 names). */
  otherPrompts: Record<string, number>;
  notes: string[];
  /** Where the version table was read when it was read at a revision (deciding: the base's side). */
  registry?: RegistryReading;
  /** Prometheus only: the inference servers' own figures (vLLM, SGLang, TGI histograms; llama.cpp means), whole server. */
  server?: { engine: string; metric: string; p50Ms?: number; p99Ms?: number; meanMs?: number }[];
}
