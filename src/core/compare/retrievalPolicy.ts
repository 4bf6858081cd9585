/**
 * The retrieval step is part of the policy that judges a change: its passages are the evidence the
 * grounded evaluators judge answers against, and its URL is where the runner sends queries. So, as
 * with scenario, SLOs and test cases (gatePolicy.ts), the judging revision's step — the base's unless
 * `--policy head` — runs for every revision; a pull request cannot point retrieval at passages that
 * agree with its answers, nor make a CI runner POST to a host of its choosing. What the head changes
 * is listed as a policy change, applied only with `--policy head`.
 */
import { retrievalDestination, type DeclaredRetrieval, type RetrievalStep } from '../retrieval/retrievalStep';
import type { PolicyChange } from './policyChange';

export interface RetrievalPolicy {
  /** The step every revision runs (none when the judging revision declares none). */
  judging: DeclaredRetrieval;
  changes: PolicyChange[];
}

const QUOTED_MAX_CHARS = 80;

function quoted(text: string): string {
  const json = JSON.stringify(text);
  return json.length > QUOTED_MAX_CHARS ? `${json.slice(0, QUOTED_MAX_CHARS - 2)}…"` : json;
}

/** What the head changes in the step, field by field, in words; URLs as origin and path only. */
function stepDifferences(base: RetrievalStep, head: RetrievalStep): string[] {
  const lines: string[] = [];
  if (base.url !== head.url) {
    const [from, to] = [retrievalDestination(base.url), retrievalDestination(head.url)];
    lines.push(from === to ? `retrieval.url ${from}: its credentials or query string changed` : `retrieval.url ${from} → ${to}`);
  }
  if (base.query !== head.query) lines.push(`retrieval.query ${quoted(base.query)} → ${quoted(head.query)}`);
  if (base.topK !== head.topK) lines.push(`retrieval.topK ${base.topK} → ${head.topK}`);
  if (base.timeoutMs !== head.timeoutMs) lines.push(`retrieval.timeoutMs ${base.timeoutMs} → ${head.timeoutMs}`);
  if (base.into !== head.into) lines.push(`retrieval.into ${base.into} → ${head.into}`);
  return lines;
}

function differences(base: DeclaredRetrieval, head: DeclaredRetrieval, headLabel: string): string[] {
  if (head.error) return base.error ? [] : [`${headLabel}'s retrieval step cannot be read (${head.error})`];
  if (base.step && head.step) return stepDifferences(base.step, head.step);
  if (head.step) return [`retrieval step added (${retrievalDestination(head.step.url)})`];
  if (base.step) return [`retrieval step removed (${retrievalDestination(base.step.url)})`];
  return [];
}

export function resolveRetrievalPolicy(base: DeclaredRetrieval, head: DeclaredRetrieval, input: { from: 'base' | 'head'; headLabel: string; notApplied: string; viaHead: string }): RetrievalPolicy {
  const explicit = input.from === 'head';
  // A step that cannot be read changes nothing countable; every other difference changes the step.
  const changes = differences(base, head, input.headLabel).map((text) => ({ text, applied: explicit && !head.error, why: explicit ? (head.error ? 'not applied' : input.viaHead) : input.notApplied, ...(head.error ? {} : { effects: { 'retrieval step changed': 1 } }) }));
  return { judging: explicit ? head : base, changes };
}
