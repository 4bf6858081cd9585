/**
 * The policy a change is judged by — scenario, SLOs, test cases and their thresholds, and the
 * retrieval step that gathers the evidence (retrievalPolicy.ts) — comes from the BASE revision (or
 * the command line), never from the revision being judged: in CI the working copy is the pull
 * request, and a change that sets `scenario: decision` or `threshold: 0` must not wave itself through. What the head changes is reported; a change that only makes the gate
 * stricter (a new SLO, a tighter limit) is applied, anything that relaxes it is applied only when
 * asked for explicitly (`--policy head`).
 */
import type { TestCase, TestSuite } from '../adherence/testCases';
import { objectiveKey, resolvePolicy, type RolloutPolicy } from '../rollout/scenario';
import { objectiveFromText, objectiveLabel, objectivesFromBlock, objectiveText, SloError, type Objective } from '../rollout/slo';
import type { DeclaredRetrieval } from '../retrieval/retrievalStep';
import { declarationsAt, type Declaration, type DeclarationContext, type LabelsAt, type RevisionDeclarations } from './revisionDeclarations';
import type { RevisionSource } from './revisionSources';
import { CLI_POLICY_WORDING, type PolicyChange, type PolicyEffects, type PolicyWording } from './policyChange';
import { resolveRetrievalPolicy } from './retrievalPolicy';

export type PolicyOrigin = 'base' | 'head';
export const POLICY_ORIGINS: readonly PolicyOrigin[] = ['base', 'head'];

export interface GatePolicy {
  policy: RolloutPolicy;
  suite: TestSuite;
  /** The retrieval step every revision runs: the judging revision's. */
  retrieval: DeclaredRetrieval;
  /** Which revision's declarations judge the change. */
  origin: PolicyOrigin;
  changes: PolicyChange[];
  /** People's labels as the judging revision has them: a judge is trusted against these, never the other side's. */
  labels?: LabelsAt;
}

export interface GatePolicyInput {
  base: RevisionDeclarations;
  head: RevisionDeclarations;
  from: PolicyOrigin;
  cliScenario?: string;
  cliSlo?: readonly string[];
  settingScenario?: string;
  /** How the changes' reasons name the switch to the head's policy; the CLI's flag unless given. */
  wording?: PolicyWording;
}

/** Throws SloError when the judging revision's (or the command line's) scenario or SLOs cannot be read. */
export function resolveGatePolicy(input: GatePolicyInput): GatePolicy {
  const judged = input.from === 'head' ? input.head : input.base;
  const other = input.from === 'head' ? input.base : input.head;
  const outside = { ...(input.cliScenario !== undefined ? { cliScenario: input.cliScenario } : {}), cliSlo: input.cliSlo ?? [], ...(input.settingScenario ? { settingScenario: input.settingScenario } : {}) };
  const policyOf = (d: RevisionDeclarations) => resolvePolicy({ ...outside, ...(d.prompt ? { prompt: d.prompt } : {}), ...(d.tests ? { tests: d.tests } : {}) });
  const policy = policyOf(judged);
  const changes: PolicyChange[] = [];
  const explicit = input.from === 'head';
  const { viaHead, notApplied } = input.wording ?? CLI_POLICY_WORDING;

  let otherPolicy: RolloutPolicy | undefined;
  try {
    otherPolicy = policyOf(other);
  } catch (error) {
    if (!(error instanceof SloError)) throw error;
    if (!explicit) changes.push({ text: `${other.label}'s scenario or SLOs cannot be read (${error.message})`, applied: false, why: 'not applied' });
  }

  if (otherPolicy && input.cliScenario === undefined && otherPolicy.scenario !== policy.scenario) {
    const [from, to] = explicit ? [otherPolicy.scenario, policy.scenario] : [policy.scenario, otherPolicy.scenario];
    changes.push({ text: `scenario ${from} → ${to}`, applied: explicit, why: explicit ? viaHead : notApplied, effects: { 'scenario changed': 1 } });
  }

  if (!explicit) tightenWithHead(policy, input, changes, notApplied);
  else for (const { text, effects } of objectiveDifferences(input.base, input.head)) changes.push({ text, applied: true, why: viaHead, effects });

  const suite = chooseSuite(input, changes, notApplied, viaHead);
  const retrieval = resolveRetrievalPolicy(input.base.retrieval, input.head.retrieval, { from: input.from, headLabel: input.head.label, notApplied, viaHead });
  changes.push(...retrieval.changes);
  return { policy, suite, retrieval: retrieval.judging, origin: input.from, changes, ...(judged.labels ? { labels: judged.labels } : {}) };
}

/** Objectives a declaration sets itself (not its scenario's defaults), by metric and percentile. */
function declaredObjectives(d: RevisionDeclarations): Map<string, Objective> {
  const byKey = new Map<string, Objective>();
  const add = (decl: Declaration | undefined) => {
    if (!decl) return;
    try {
      for (const o of objectivesFromBlock(decl.slo, decl.where)) byKey.set(objectiveKey(o), o);
    } catch (error) {
      if (!(error instanceof SloError)) throw error;
    }
  };
  add(d.tests);
  add(d.prompt);
  return byKey;
}

/** Whether `a` asks at least as much as `b` (same metric and percentile). */
function atLeastAsStrict(a: Objective, b: Objective): boolean {
  if (a.metric === 'adherence' && b.metric === 'adherence') return a.min >= b.min;
  if (a.metric === 'hallucination' && b.metric === 'hallucination') return a.max <= b.max;
  if ('maxMs' in a && 'maxMs' in b) return a.maxMs <= b.maxMs;
  return false;
}

/** The head's own SLOs: stricter or new ones tighten the base's policy; looser or dropped ones are reported only. */
function tightenWithHead(policy: RolloutPolicy, input: GatePolicyInput, changes: PolicyChange[], notApplied: string): void {
  const fromCli = new Set((input.cliSlo ?? []).map((text) => objectiveKey(objectiveFromText(text))));
  const baseDeclared = declaredObjectives(input.base);
  const headDeclared = declaredObjectives(input.head);
  const current = new Map(policy.objectives.map((o) => [objectiveKey(o), o]));
  for (const [key, headObjective] of headDeclared) {
    const inForce = current.get(key);
    if (inForce && objectiveText(inForce) === objectiveText(headObjective)) continue;
    if (fromCli.has(key)) {
      changes.push({ text: `SLO ${objectiveLabel(headObjective)} set by ${input.head.label}`, applied: false, why: 'not applied: --slo sets it' });
    } else if (!inForce || atLeastAsStrict(headObjective, inForce)) {
      current.set(key, headObjective);
      changes.push({ text: inForce ? `SLO ${objectiveLabel(inForce)} → ${objectiveLabel(headObjective)}` : `SLO ${objectiveLabel(headObjective)} added`, applied: true, why: 'applied: it makes the gate stricter', effects: inForce ? { 'SLO tightened': 1 } : { 'SLO added': 1 } });
    } else {
      changes.push({ text: `SLO ${objectiveLabel(inForce)} → ${objectiveLabel(headObjective)}`, applied: false, why: notApplied, effects: { 'SLO loosened': 1 } });
    }
  }
  for (const [key, baseObjective] of baseDeclared) {
    if (!headDeclared.has(key)) changes.push({ text: `SLO ${objectiveLabel(baseObjective)} removed`, applied: false, why: notApplied, effects: { 'SLO removed': 1 } });
  }
  policy.objectives = [...current.values()];
}

function objectiveDifferences(base: RevisionDeclarations, head: RevisionDeclarations): { text: string; effects: PolicyEffects }[] {
  const b = declaredObjectives(base);
  const h = declaredObjectives(head);
  const lines: { text: string; effects: PolicyEffects }[] = [];
  for (const [key, o] of h) {
    const was = b.get(key);
    if (!was) lines.push({ text: `SLO ${objectiveLabel(o)} added`, effects: { 'SLO added': 1 } });
    else if (objectiveText(was) !== objectiveText(o)) lines.push({ text: `SLO ${objectiveLabel(was)} → ${objectiveLabel(o)}`, effects: atLeastAsStrict(o, was) ? { 'SLO tightened': 1 } : { 'SLO loosened': 1 } });
  }
  for (const [key, o] of b) if (!h.has(key)) lines.push({ text: `SLO ${objectiveLabel(o)} removed`, effects: { 'SLO removed': 1 } });
  return lines;
}

/** The test cases that judge: the judging revision's; the head's only when the base has none (there was no gate to relax). */
function chooseSuite(input: GatePolicyInput, changes: PolicyChange[], notApplied: string, viaHead: string): TestSuite {
  const { base, head } = input;
  const difference = suiteDifference(base.suite, head.suite);
  if (input.from === 'head') {
    if (difference) changes.push({ text: `test cases: ${difference.text}`, applied: true, why: viaHead, effects: difference.effects });
    return head.suite;
  }
  if (base.suite.cases.length === 0 && head.suite.cases.length > 0) {
    changes.push({ text: `test cases: ${base.label} has none; ${head.label} adds ${head.suite.cases.length}`, applied: true, why: `applied: there were none to relax`, effects: { 'case added': head.suite.cases.length } });
    return head.suite;
  }
  if (difference) changes.push({ text: `test cases: ${difference.text}`, applied: false, why: notApplied, effects: difference.effects });
  return base.suite;
}

/** `1 added, 2 changed (threshold, assertions), 1 removed` and its counts, or undefined when the cases are the same. */
function suiteDifference(base: TestSuite, head: TestSuite): { text: string; effects: PolicyEffects } | undefined {
  const byName = (s: TestSuite) => new Map(s.cases.map((c) => [c.description, c]));
  const b = byName(base);
  const h = byName(head);
  let added = 0;
  let removed = 0;
  let changedCases = 0;
  const changed = new Set<string>();
  for (const [name, c] of h) {
    const was = b.get(name);
    if (!was) {
      added++;
      continue;
    }
    const aspects = caseDifferences(was, c);
    if (aspects.length > 0) changedCases++;
    for (const aspect of aspects) changed.add(aspect);
  }
  for (const name of b.keys()) if (!h.has(name)) removed++;
  const parts = [
    added ? `${added} added` : '',
    changedCases ? `${changedCases} changed (${[...changed].join(', ')})` : '',
    removed ? `${removed} removed` : '',
  ].filter(Boolean);
  return parts.length > 0 ? { text: parts.join(', '), effects: { ...(added ? { 'case added': added } : {}), ...(changedCases ? { 'case changed': changedCases } : {}), ...(removed ? { 'case removed': removed } : {}) } } : undefined;
}

function caseDifferences(a: TestCase, b: TestCase): string[] {
  const aspects: string[] = [];
  if (a.threshold !== b.threshold) aspects.push(`threshold ${a.threshold} → ${b.threshold}`);
  if (JSON.stringify(a.assertions) !== JSON.stringify(b.assertions)) aspects.push('assertions');
  if (JSON.stringify(a.vars) !== JSON.stringify(b.vars)) aspects.push('inputs');
  return aspects;
}

/** The gate policy for base (first source) → head (last source): declarations read at each, resolved by gatePolicy.ts. */
export async function loadGatePolicy(sources: readonly RevisionSource[], context: DeclarationContext, outside: Omit<GatePolicyInput, 'base' | 'head'>): Promise<GatePolicy> {
  const base = await declarationsAt(sources[0]!, context);
  const head = sources.length > 1 ? await declarationsAt(sources[sources.length - 1]!, context) : base;
  return resolveGatePolicy({ ...outside, base, head });
}
