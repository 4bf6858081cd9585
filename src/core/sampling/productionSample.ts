/**
 * Production requests → test cases: the spans of the prompt whose input was captured
 * (`gen_ai.input.messages`) are collected (bounded), their inputs mapped back to the template's
 * variables where the messages allow or kept as the messages, redacted, and chosen by a strategy —
 * random, slowest, errors, or stratified (an equal share per prompt version) — skipping inputs seen
 * before (in this sample or among the file's cases). Spans that end in the future (beyond a clock
 * tolerance) are counted and not sampled.
 */
import type { ImportedSpan, SkipReason, SpanSink } from '../telemetry/importOtlpSpans';
import { seededRandom } from '../stats/random';
import type { Prompt } from '../formats/model';
import { parseMessagesJson, type CapturedMessage } from '../telemetry/capturedContent';
import { redactValue, type Redactor } from './redact';
import { varsFromMessages } from './templateVars';

export const STRATEGIES = ['random', 'slowest', 'errors', 'stratified'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** Candidates kept in memory; beyond, a seeded reservoir keeps a uniform sample of them (said). */
export const MAX_CANDIDATES = 20_000;
/** Clock tolerance: a span may end this far after our own clock before it is called "in the future". */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

interface Candidate {
  span: ImportedSpan & { traceId: string; spanId: string; inputMessages: string };
  order: number;
}

export class SampleSink implements SpanSink {
  readonly candidates: Candidate[] = [];
  readonly skipped = new Map<SkipReason | 'future-end', number>();
  matched = 0;
  withoutInput = 0;
  others = 0;
  seen = 0;
  private readonly random: () => number;

  constructor(
    private readonly promptNames: ReadonlySet<string>,
    seed: number,
    private readonly nowMs: number,
  ) {
    this.random = seededRandom(seed ^ 0x5eed);
  }

  span(span: ImportedSpan): void {
    if (span.promptName === null || !this.promptNames.has(span.promptName)) {
      this.others++;
      return;
    }
    if (span.endMs > this.nowMs + FUTURE_TOLERANCE_MS) return this.skip('future-end');
    this.matched++;
    if (!span.inputMessages || !span.traceId || !span.spanId) {
      this.withoutInput++;
      return;
    }
    const candidate = { span: span as Candidate['span'], order: this.seen++ };
    if (this.candidates.length < MAX_CANDIDATES) this.candidates.push(candidate);
    else {
      const slot = Math.floor(this.random() * this.seen);
      if (slot < MAX_CANDIDATES) this.candidates[slot] = candidate;
    }
  }

  skip(reason: SkipReason | 'future-end'): void {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + 1);
  }

  other(): void {
    this.others++;
  }
}

export interface SampledCase {
  inputs: 'template-variables' | 'messages';
  vars: Record<string, unknown>;
  messages?: CapturedMessage[];
  /** The dedupe key: the written inputs, keys sorted. */
  key: string;
  traceId: string;
  spanId: string;
  endTime: string;
  version: string;
  e2eMs: number;
  errorType: string | null;
  redactions: Map<string, number>;
}

export interface SampleResult {
  cases: SampledCase[];
  /** Distinct inputs available to the strategy (after dedupe), of the captured ones. */
  eligible: number;
  duplicates: number;
  alreadyInFile: number;
  unreadableInput: number;
}

export function stableKey(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));
}

/** The strategy's order over the candidates (before dedupe): the first n distinct inputs are taken. */
function ordered(candidates: readonly Candidate[], strategy: Strategy, seed: number): Candidate[] {
  const random = seededRandom(seed);
  const shuffled = (list: readonly Candidate[]) => {
    const out = [...list].sort((a, b) => a.order - b.order);
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  switch (strategy) {
    case 'random':
      return shuffled(candidates);
    case 'slowest':
      return [...candidates].sort((a, b) => b.span.e2eMs - a.span.e2eMs || a.order - b.order);
    case 'errors':
      return candidates.filter((c) => c.span.errorType !== null).sort((a, b) => b.span.endMs - a.span.endMs || a.order - b.order);
    case 'stratified': {
      // Versions in the order they first answered; round-robin over them, each version's requests shuffled.
      const byVersion = new Map<string, Candidate[]>();
      for (const c of [...candidates].sort((a, b) => a.span.startMs - b.span.startMs)) byVersion.set(c.span.promptVersion, [...(byVersion.get(c.span.promptVersion) ?? []), c]);
      const queues = [...byVersion.values()].map(shuffled);
      const out: Candidate[] = [];
      for (let i = 0; out.length < candidates.length; i++) for (const q of queues) if (q[i]) out.push(q[i]!);
      return out;
    }
  }
}

export function chooseCases(sink: SampleSink, prompt: Prompt, options: { n: number; strategy: Strategy; seed: number; redactor: Redactor; existingKeys: ReadonlySet<string> }): SampleResult {
  const cases: SampledCase[] = [];
  const keys = new Set<string>();
  let duplicates = 0;
  let alreadyInFile = 0;
  let unreadableInput = 0;
  let eligible = 0;
  for (const c of ordered(sink.candidates, options.strategy, options.seed)) {
    const messages = parseMessagesJson(c.span.inputMessages);
    if (!messages) {
      unreadableInput++;
      continue;
    }
    // Redacted first: the key is what would be written, and nothing unredacted goes further.
    options.redactor.take();
    const vars = varsFromMessages(prompt, messages);
    const written = vars ? { vars: redactValue(vars, options.redactor) as Record<string, unknown> } : { messages: redactValue(messages, options.redactor) as CapturedMessage[] };
    const redactions = options.redactor.take();
    const key = stableKey(written);
    if (options.existingKeys.has(key)) {
      alreadyInFile++;
      continue;
    }
    if (keys.has(key)) {
      duplicates++;
      continue;
    }
    keys.add(key);
    eligible++;
    if (cases.length >= options.n) continue;
    cases.push({
      inputs: vars ? 'template-variables' : 'messages',
      vars: written.vars ?? {},
      ...(written.messages ? { messages: written.messages } : {}),
      key,
      traceId: c.span.traceId,
      spanId: c.span.spanId,
      endTime: new Date(c.span.endMs).toISOString(),
      version: c.span.promptVersion,
      e2eMs: c.span.e2eMs,
      errorType: c.span.errorType,
      redactions,
    });
  }
  return { cases, eligible, duplicates, alreadyInFile, unreadableInput };
}
