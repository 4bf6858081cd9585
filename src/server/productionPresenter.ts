/**
 * Production beside the dev estimate: the lens line and the hover section for one prompt, from the
 * configured sources' reports — the version whose content is the text in the editor, or else the
 * latest version production saw (said), and every version production serves that the file's git
 * history does not hold.
 */
import type { PromptAnalysis } from '../core/analysis';
import { formatMs } from '../core/metrics/format';
import { METRIC_NAMES } from '../core/text/metricNames';
import { requestOf } from '../core/run/promptRequest';
import { promptContentHash } from '../core/store/runKey';
import type { FileProduction, SourceReading } from '../core/telemetry/prodForEditor';
import type { ProdVersion } from '../core/telemetry/prodReport';
import type { FileVersions } from '../core/telemetry/prodVersions';
import { productionView, type ProductionWindow } from '../core/telemetry/productionView';
import { anomalyViews, isOngoing } from '../core/baseline/productionAnomalies';
import type { ProductionAlert, ProductionViewResult } from '../protocol/productionRequest';
import type { ProductionLookup } from './productionFigures';

export interface PromptProduction {
  /** The version shown and whether it is this text's. */
  version: ProdVersion;
  matchesText: boolean;
  reading: SourceReading;
  /** Versions of this prompt production saw that are not in the file's git history. */
  notInHistory: ProdVersion[];
}

/** The content hash of the prompt as the editor renders it (what `run` and the exporter key it by). */
export function promptHashOf(prompt: PromptAnalysis): string | undefined {
  try {
    return promptContentHash(requestOf(prompt.prompt, prompt.messages, { endpointDefault: 'any' }));
  } catch {
    return undefined;
  }
}

/** The version in `versions` that is this text: by its revision's content hash, or a content-hash label. */
export function versionOfText(versions: readonly ProdVersion[], fileVersions: FileVersions, promptName: string, hash: string | undefined): ProdVersion | undefined {
  if (!hash) return undefined;
  const revs = new Set(fileVersions.revisions.filter((r) => r.hashes.get(promptName) === hash).map((r) => r.rev));
  const matching = versions.filter((v) => {
    const label = v.version.trim().toLowerCase();
    const hashLabel = /^sha256:([0-9a-f]{8,64})$/.exec(label)?.[1] ?? (/^[0-9a-f]{64}$/.test(label) ? label : undefined);
    return (v.revision !== null && revs.has(v.revision)) || (hashLabel !== undefined && hash.startsWith(hashLabel));
  });
  return matching.sort((a, b) => b.requests - a.requests)[0];
}

/** Per source with numbers for this prompt: the version to show. */
export function promptProduction(production: FileProduction, prompt: PromptAnalysis): PromptProduction[] {
  const name = prompt.prompt.name;
  const hash = promptHashOf(prompt);
  const out: PromptProduction[] = [];
  for (const reading of production.readings) {
    const versions = reading.report?.versions.filter((v) => v.promptName === name || v.promptName === null) ?? [];
    if (versions.length === 0) continue;
    const own = versionOfText(versions, production.versions, name, hash);
    out.push({ version: own ?? versions[0]!, matchesText: own !== undefined, reading, notInHistory: versions.filter((v) => !v.inGitHistory) });
  }
  return out;
}

export function formatCount(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 100_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

/** `24h` → `24 h`. */
export function windowLabel(since: string): string {
  return since.replace(/^(\d+)([smhdw])$/, '$1 $2');
}

export function shortVersion(version: string): string {
  const v = version.trim();
  if (/^[0-9a-f]{8,64}$/i.test(v)) return v.slice(0, 7);
  if (/^sha256:[0-9a-f]+$/i.test(v)) return v.slice(0, 15);
  return v.length > 24 ? `${v.slice(0, 23)}…` : v;
}

/**
 * Production strings (versions, error types, notes, commit subjects) are anyone's text. In the plain-text
 * lens, control characters (terminal and bidi controls, line breaks) are shown as U+FFFD; in the
 * Markdown hover also everything Markdown or HTML would act on mid-line is backslash-escaped: emphasis,
 * code, links and images, HTML tags and entities, tables, and the `:`/`@`/`www.` of autolinks.
 */
const plainText = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '\uFFFD');
const markdownText = (text: string) => plainText(text).replace(/[\\`*_~[\]()!<>|&#:@]/g, (c) => `\\${c}`).replace(/(www)\./gi, '$1\\.');

/** `prod TTFT p50 420 ms · p99 2.10 s · 12.3k req/24 h · v a1b2c3d` (`text`: how production strings are written). */
export function productionLine(p: PromptProduction, text: (s: string) => string = plainText): string {
  const v = p.version;
  const ttft = v.ttftMs.p50 ? `TTFT p50 ${formatMs(v.ttftMs.p50.value)} · p99 ${v.ttftMs.p99 ? formatMs(v.ttftMs.p99.value) : 'n/a'}` : 'TTFT n/a';
  return `prod ${ttft} · ${formatCount(v.requests)} req/${windowLabel(p.reading.source.since)} · v ${text(shortVersion(v.version))}`;
}

/** The lens: the first source with numbers; "(latest)" when it is not this text's version. */
export function productionLensTitle(lookup: ProductionLookup | undefined, prompt: PromptAnalysis): string | undefined {
  if (!lookup) return undefined;
  if (lookup.state === 'loading') return 'prod: reading…';
  if (lookup.state !== 'ready') return undefined;
  const first = promptProduction(lookup.production, prompt)[0];
  if (!first) return lookup.production.readings.some((r) => r.error) ? 'prod: source unreadable (see hover)' : undefined;
  return `${productionLine(first)}${first.matchesText ? '' : ' (latest)'}`;
}

const safe = markdownText;

/**
 * The hover's production, per source in one or two lines: the TTFT line of the version (this text's,
 * or the latest), then E2E latency, errors and adherence, with a link to the full view; what qualifies
 * the numbers (versions not in git history, the source's notes) follows in one line.
 */
export function productionHoverSection(lookup: ProductionLookup | undefined, prompt: PromptAnalysis, viewLink: string): string | undefined {
  if (!lookup || lookup.state === 'off') return undefined;
  if (lookup.state === 'restricted') return '**Production**: sources are configured but not read in Restricted Mode. Trust the workspace to see production numbers.';
  if (lookup.state === 'loading') return `**Production**: reading ${lookup.sources} source${lookup.sources === 1 ? '' : 's'}…`;
  const lines: string[] = [];
  const shown = promptProduction(lookup.production, prompt);
  for (const reading of lookup.production.readings) {
    const p = shown.find((s) => s.reading === reading);
    const head = `**Production** · ${safe(reading.label)} · last ${windowLabel(reading.source.since)}`;
    if (reading.error) {
      lines.push(`${head}: ${safe(reading.error)}`, '');
      continue;
    }
    if (!p) {
      lines.push(`${head}: no requests of \`${safe(prompt.prompt.name)}\`.`, '');
      continue;
    }
    const v = p.version;
    const which = p.matchesText ? 'this text' : `latest in production; this text was not seen there`;
    lines.push(`${head}: ${productionLine(p, markdownText)} — ${which}${v.revision && v.revision !== 'working' ? ` (${v.revision.slice(0, 7)}${v.revisionSubject ? ` "${safe(v.revisionSubject)}"` : ''})` : ''}`);
    const e2e = v.e2eMs.p50 ? `${METRIC_NAMES.e2eMs} p50 ${formatMs(v.e2eMs.p50.value)} · p99 ${v.e2eMs.p99 ? formatMs(v.e2eMs.p99.value) : 'n/a'}` : undefined;
    const errors = `errors ${(v.errorRate * 100).toFixed(1)}%${Object.keys(v.errorsByType).length ? ` (${Object.entries(v.errorsByType).slice(0, 3).map(([t, n]) => `${safe(t)} ${n}`).join(', ')})` : ''}`;
    lines.push('', `${[e2e, errors, v.ttftMs.p99 === null && v.ttftMs.n > 0 ? `p99 needs 100 requests (has ${v.ttftMs.n})` : undefined, adherenceWords(v.adherence)].filter(Boolean).join(' · ')} — ${viewLink}`);
    const caveats = [
      reading.report?.source.kind === 'prometheus' ? 'percentiles interpolated within histogram buckets (no intervals)' : undefined,
      ...p.notInHistory.slice(0, 3).map((missing) => `⚠ version ${safe(shortVersion(missing.version))} seen in production is not in this file's git history (${formatCount(missing.requests)} req)`),
      ...reading.notes.slice(0, 2).map(safe),
    ].filter(Boolean);
    if (caveats.length > 0) lines.push('', `_${caveats.join(' · ')}_`);
    lines.push('');
  }
  return lines.join('\n').trimEnd();
}

/** The Production view for the panel, or why there is none. */
export function productionViewResult(lookup: ProductionLookup, prompt: PromptAnalysis, file: string, window: ProductionWindow = 'since-change'): ProductionViewResult {
  if (lookup.state === 'off') return { problem: 'No production source is configured: set promptInsight.production.sources (trace files or a Prometheus server).' };
  if (lookup.state === 'restricted') return { problem: 'Production sources are not read in Restricted Mode: trust the workspace first.' };
  if (lookup.state === 'loading') return { problem: 'Production numbers are still being read; try again in a moment.' };
  const hash = promptHashOf(prompt);
  const own = new Set(lookup.production.readings.map((r) => versionOfText(r.report?.versions.filter((v) => v.promptName === prompt.prompt.name || v.promptName === null) ?? [], lookup.production.versions, prompt.prompt.name, hash)));
  return { view: productionView(file, lookup.production, prompt.prompt.name, (v) => own.has(v), window, (reading, fromMs, untilMs) => anomalyViews(reading.watch?.[prompt.prompt.name]?.anomalies ?? [], fromMs, untilMs, lookup.production.readAtMs)) };
}

/** The first prompt of the file with an anomaly going on now (its newest hours depart from the baseline), for the status bar. */
export function productionAlertOf(lookup: ProductionLookup, prompts: readonly PromptAnalysis[], nowMs: number): ProductionAlert | null {
  if (lookup.state !== 'ready') return null;
  for (const [promptIndex, prompt] of prompts.entries()) {
    const name = prompt.prompt.name;
    for (const reading of lookup.production.readings) {
      const ongoing = (reading.watch?.[name]?.anomalies ?? []).filter((a) => isOngoing(a, nowMs));
      const [said] = anomalyViews(ongoing, 0, nowMs + 1, nowMs);
      if (said) return { promptIndex, prompt: name, title: `${said.label} over baseline`, detail: plainText(said.sentence) };
    }
  }
  return null;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** `adherence 92% [81%, 97%] · 46 of 50 sampled answers pass`, from the tests file's judge-free checks. */
function adherenceWords(a: PromptProduction['version']['adherence']): string | undefined {
  if (!a) return undefined;
  if (a.rate === null || !a.ci95) return a.withAnswer > 0 ? `adherence: none of ${a.withAnswer} captured answers could be scored` : undefined;
  return `adherence ${pct(a.rate)} [${pct(a.ci95[0])}, ${pct(a.ci95[1])}] · ${a.passed} of ${a.scored} sampled answers pass · checks: ${a.checks.slice(0, 3).map(safe).join(', ')}${a.checks.length > 3 ? ', …' : ''}`;
}
