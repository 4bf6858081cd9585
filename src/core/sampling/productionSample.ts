/**
 * Production requests → test cases, streamed: each span of the prompt whose input was captured
 * (`gen_ai.input.messages`) is read as it arrives — its messages mapped back to the template's
 * variables where they match, else production's turns without its instructions (templateVars.ts),
 * redacted, made inert (no value a loader would read as a reference), deduplicated (also against the
 * file's cases) — and only the cases the strategy may write are kept (keptCases.ts): random, slowest
 * (of the calls that answered: a 30 s timeout is not a slow answer), errors (the failed calls), or
 * stratified (an equal share per prompt version). Only calls that ended in the range and, when asked,
 * are of the version asked are sampled. Nothing else of a span is held, so memory is bounded by n
 * and the input budget whatever the files hold. Spans that end in the future (beyond a clock
 * tolerance) are counted and not sampled.
 */
import { createHash } from 'node:crypto';
import type { ImportedSpan, SkipReason, SpanSink } from '../telemetry/importOtlpSpans';
import { seededRandom } from '../stats/random';
import type { Prompt } from '../formats/model';
import { inertText } from '../render/references';
import { MAX_CAPTURED_CHARS, parseMessagesJson, type CapturedMessage } from '../telemetry/capturedContent';
import { KeptCases, type Rank } from './keptCases';
import { mapStrings, type Redactor } from './redact';
import { sampledInputs } from './templateVars';

export const STRATEGIES = ['random', 'slowest', 'errors', 'stratified'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** Clock tolerance: a span may end this far after our own clock before it is called "in the future". */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;
/** Characters of inputs kept for writing: the tests file must stay readable (8 MiB, workspaceFile.ts). */
export const SAMPLED_INPUT_BUDGET_CHARS = 4 * 1024 * 1024;
/** Distinct inputs remembered for the duplicate count (a hash each); beyond, the counts are lower bounds. */
export const MAX_TRACKED_INPUTS = 200_000;
/** Prompt versions stratified over; requests of further versions are counted and not sampled. */
export const MAX_STRATA = 1000;

export interface SampledCase {
  /** The template's variables, or production's turns (sent after the current prompt's instructions). */
  inputs: 'template-variables' | 'turns';
  vars: Record<string, unknown>;
  turns?: CapturedMessage[];
  /** The dedupe key: the written inputs, keys sorted. */
  key: string;
  traceId: string;
  spanId: string;
  endTime: string;
  version: string;
  e2eMs: number;
  errorType: string | null;
  /** A call without error type that answered nothing (zero output tokens). */
  noAnswer?: true;
  redactions: Map<string, number>;
}

export interface SampleResult {
  cases: SampledCase[];
  /** Distinct inputs available to the strategy (after dedupe), of the captured ones. */
  eligible: number;
  duplicates: number;
  alreadyInFile: number;
  unreadableInput: number;
  /** Captured inputs over MAX_CAPTURED_CHARS: never parsed or kept. */
  inputTooLarge: number;
  /** Cases left out because the inputs kept would pass SAMPLED_INPUT_BUDGET_CHARS. */
  cutForSize: boolean;
  /** More distinct inputs than MAX_TRACKED_INPUTS: eligible and duplicates are lower bounds. */
  countsApproximate: boolean;
}

export interface SampleOptions {
  n: number;
  strategy: Strategy;
  seed: number;
  redactor: Redactor;
  existingKeys: ReadonlySet<string>;
  nowMs: number;
  budgetChars?: number;
  /** Only calls that ended in [sinceMs, untilMs]. */
  sinceMs?: number;
  untilMs?: number;
  /** Only calls whose version label is one of these (versionFilter.ts resolves them as prod does). */
  versions?: ReadonlySet<string>;
}

export function stableKey(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

type SkipKind = SkipReason | 'future-end' | 'too-many-versions';

/** A call that did not answer: an error type (timeout, 429, 5xx), or no output tokens when they were counted. */
export function failed(span: Pick<ImportedSpan, 'errorType' | 'outputTokens'>): boolean {
  return span.errorType !== null || span.outputTokens === 0;
}

export class SampleSink implements SpanSink {
  readonly skipped = new Map<SkipKind, number>();
  matched = 0;
  withoutInput = 0;
  others = 0;
  /** Calls of the prompt left out by the range or the version asked. */
  outsideRange = 0;
  otherVersion = 0;
  /** Failed calls (an error type, or no answer) `slowest` passed over. */
  failedNotSlowest = 0;
  private arrivals = 0;
  private readonly counts = { eligible: 0, duplicates: 0, alreadyInFile: 0, unreadableInput: 0, inputTooLarge: 0 };
  private readonly seenInputs = new Set<string>();
  private countsApproximate = false;
  private readonly random: () => number;
  private readonly budget: number;
  private readonly kept: KeptCases<SampledCase>;
  /** Stratified: one selection per version, and when each version first answered. */
  private readonly strata = new Map<string, { kept: KeptCases<SampledCase>; firstStartMs: number }>();

  constructor(
    private readonly prompt: Prompt,
    private readonly options: SampleOptions,
  ) {
    this.random = seededRandom(options.seed);
    this.budget = options.budgetChars ?? SAMPLED_INPUT_BUDGET_CHARS;
    this.kept = new KeptCases(options.n, this.budget);
  }

  span(span: ImportedSpan): void {
    if (span.promptName === null || span.promptName !== this.prompt.name) {
      this.others++;
      return;
    }
    if (span.endMs > this.options.nowMs + FUTURE_TOLERANCE_MS) return this.skip('future-end');
    const { sinceMs, untilMs, versions } = this.options;
    if ((sinceMs !== undefined && span.endMs < sinceMs) || (untilMs !== undefined && span.endMs > untilMs)) {
      this.outsideRange++;
      return;
    }
    if (versions && !versions.has(span.promptVersion)) {
      this.otherVersion++;
      return;
    }
    this.matched++;
    if (span.inputTooLarge) {
      this.counts.inputTooLarge++;
      return;
    }
    if (!span.inputMessages || !span.traceId || !span.spanId) {
      this.withoutInput++;
      return;
    }
    const order = this.arrivals++;
    const random = this.random(); // drawn for every request, so the seed decides the same way whatever the strategy
    const strategy = this.options.strategy;
    if (strategy === 'errors' && !failed(span)) return;
    if (strategy === 'slowest' && failed(span)) {
      this.failedNotSlowest++;
      return;
    }
    const rank: Rank = strategy === 'slowest' ? [-span.e2eMs, order] : strategy === 'errors' ? [-span.endMs, order] : [random, order];
    const selection = strategy === 'stratified' ? this.stratum(span) : this.kept;
    if (!selection) return this.skip('too-many-versions');
    if (span.inputMessages.length > MAX_CAPTURED_CHARS) {
      this.counts.inputTooLarge++;
      return;
    }
    const messages = parseMessagesJson(span.inputMessages);
    if (!messages) {
      this.counts.unreadableInput++;
      return;
    }
    const written = this.writtenInputs(messages);
    if (this.options.existingKeys.has(written.key)) {
      this.counts.alreadyInFile++;
      return;
    }
    this.countInput(written.key);
    selection.offer(written.key, rank, written.key.length, {
      inputs: written.vars ? 'template-variables' : 'turns',
      vars: written.vars ?? {},
      ...(written.turns ? { turns: written.turns } : {}),
      key: written.key,
      traceId: span.traceId,
      spanId: span.spanId,
      endTime: new Date(span.endMs).toISOString(),
      version: span.promptVersion,
      e2eMs: span.e2eMs,
      errorType: span.errorType,
      ...(span.errorType === null && failed(span) ? { noAnswer: true as const } : {}),
      redactions: written.redactions,
    });
  }

  skip(reason: SkipKind): void {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + 1);
  }

  other(): void {
    this.others++;
  }

  result(): SampleResult {
    const cases = this.options.strategy === 'stratified' ? this.roundRobin() : this.kept.ordered().map((k) => k.value);
    const cutForSize = this.kept.cutForSize || [...this.strata.values()].some((s) => s.kept.cutForSize);
    return { cases, ...this.counts, cutForSize, countsApproximate: this.countsApproximate };
  }

  /** Redacted first (nothing unredacted goes further), then inert; the key is what would be written. */
  private writtenInputs(messages: CapturedMessage[]): { vars?: Record<string, string>; turns?: CapturedMessage[]; key: string; redactions: Map<string, number> } {
    const { redactor } = this.options;
    redactor.take();
    const clean = (text: string) => inertText(redactor.redact(text));
    const inputs = sampledInputs(this.prompt, messages);
    const written = 'vars' in inputs ? { vars: mapStrings(inputs.vars, clean) } : { turns: mapStrings(inputs.turns, clean) };
    return { ...written, key: stableKey(written), redactions: redactor.take() };
  }

  private countInput(key: string): void {
    const hash = createHash('sha256').update(key).digest('base64');
    if (this.seenInputs.has(hash)) {
      this.counts.duplicates++;
      return;
    }
    this.counts.eligible++;
    if (this.seenInputs.size < MAX_TRACKED_INPUTS) this.seenInputs.add(hash);
    else this.countsApproximate = true;
  }

  private stratum(span: ImportedSpan): KeptCases<SampledCase> | undefined {
    const known = this.strata.get(span.promptVersion);
    if (known) {
      known.firstStartMs = Math.min(known.firstStartMs, span.startMs);
      return known.kept;
    }
    if (this.strata.size >= MAX_STRATA) return undefined;
    // Each version's share of the budget: a new version shrinks every share.
    const share = Math.floor(this.budget / (this.strata.size + 1));
    for (const s of this.strata.values()) s.kept.shrinkTo(share);
    const kept = new KeptCases<SampledCase>(this.options.n, share);
    this.strata.set(span.promptVersion, { kept, firstStartMs: span.startMs });
    return kept;
  }

  /** Versions in the order they first answered; one case of each in turn; an input taken once. */
  private roundRobin(): SampledCase[] {
    const queues = [...this.strata.values()].sort((a, b) => a.firstStartMs - b.firstStartMs).map((s) => s.kept.ordered());
    const out: SampledCase[] = [];
    const taken = new Set<string>();
    for (let i = 0; out.length < this.options.n && queues.some((q) => i < q.length); i++) {
      for (const q of queues) {
        const next = q[i]?.value;
        if (!next || taken.has(next.key) || out.length >= this.options.n) continue;
        taken.add(next.key);
        out.push(next);
      }
    }
    return out;
  }
}
