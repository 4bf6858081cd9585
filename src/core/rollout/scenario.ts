/**
 * What a prompt is for decides which numbers may stop its rollout (the seed: don't optimise one
 * metric alone). Interactive chat gates on latency — 1–2 s to the first token breaks it; batch work
 * gates on throughput; strict-decision work (real estate, legal) tolerates latency and gates on
 * adherence. Each scenario has default SLOs — every one a floor on adherence, so that a prompt whose
 * test cases mostly fail never "ships" (strict decisions ask more: 80%); a prompt file, its tests
 * file, the CLI and the setting can declare the scenario and add or tighten SLOs.
 */
import { objectiveFromText, objectivesFromBlock, objectiveLabel, SloError, type Objective } from './slo';

export type Scenario = 'interactive' | 'batch' | 'decision';
export const SCENARIOS: readonly Scenario[] = ['interactive', 'batch', 'decision'];

export interface ScenarioRules {
  /** A significant latency worsening beyond the practical margin holds the rollout. */
  latencyBlocks: boolean;
  /** A significant throughput (output tokens/s) drop beyond the margin holds the rollout. */
  throughputBlocks: boolean;
  /** A lower max concurrency within the SLOs (compare --capacity, both searches resolved) holds the rollout. */
  capacityBlocks: boolean;
  defaultSlo: Objective[];
  why: string;
}

export const SCENARIO_RULES: Record<Scenario, ScenarioRules> = {
  interactive: {
    latencyBlocks: true,
    throughputBlocks: false,
    capacityBlocks: false,
    defaultSlo: [
      { metric: 'ttftMs', percentile: 'p90', maxMs: 2000 },
      { metric: 'adherence', min: 0.7 },
    ],
    why: 'interactive use gates on time to first token (1–2 s breaks a conversation)',
  },
  batch: {
    latencyBlocks: false,
    throughputBlocks: true,
    capacityBlocks: true,
    defaultSlo: [{ metric: 'adherence', min: 0.7 }],
    why: 'batch work gates on throughput; single-request latency is shown, not blocking',
  },
  decision: {
    latencyBlocks: false,
    throughputBlocks: false,
    capacityBlocks: false,
    defaultSlo: [
      { metric: 'e2eMs', percentile: 'p90', maxMs: 30_000 },
      { metric: 'adherence', min: 0.8 },
    ],
    why: 'strict-decision work tolerates latency inside its SLOs and gates on adherence',
  },
};

export interface RolloutPolicy {
  scenario: Scenario;
  /** Where the scenario came from: `--scenario`, `homes.prompty`, `homes.tests.yaml`, the setting, or the default. */
  scenarioSource: string;
  objectives: Objective[];
}

export interface PolicySources {
  cliScenario?: string;
  cliSlo?: readonly string[];
  /** The judging revision's prompt file (`scenario:`/`slo:` in front matter or at the top); see compare/gatePolicy.ts. */
  prompt?: { where: string; scenario?: unknown; slo?: unknown };
  tests?: { where: string; scenario?: unknown; slo?: unknown };
  settingScenario?: string;
}

function scenarioOf(value: unknown, where: string): Scenario {
  if (typeof value === 'string' && (SCENARIOS as readonly string[]).includes(value.trim())) return value.trim() as Scenario;
  throw new SloError(`${where}: scenario must be one of ${SCENARIOS.join(', ')} (got ${JSON.stringify(value)})`);
}

/** Same metric and percentile: the later declaration replaces the earlier. */
export function objectiveKey(o: Objective): string {
  return o.metric === 'adherence' || o.metric === 'hallucination' ? o.metric : `${o.metric}.${o.percentile}`;
}

/**
 * The policy: scenario from `--scenario`, else the prompt file, else its tests file, else the
 * setting, else interactive (the strictest on latency). SLOs: the scenario's defaults, replaced per
 * metric and percentile by the tests file, then the prompt file, then `--slo`.
 */
export function resolvePolicy(sources: PolicySources): RolloutPolicy {
  let scenario: Scenario = 'interactive';
  let scenarioSource = 'default';
  if (sources.cliScenario !== undefined) [scenario, scenarioSource] = [scenarioOf(sources.cliScenario, '--scenario'), '--scenario'];
  else if (sources.prompt?.scenario !== undefined) [scenario, scenarioSource] = [scenarioOf(sources.prompt.scenario, sources.prompt.where), sources.prompt.where];
  else if (sources.tests?.scenario !== undefined) [scenario, scenarioSource] = [scenarioOf(sources.tests.scenario, sources.tests.where), sources.tests.where];
  else if (sources.settingScenario) [scenario, scenarioSource] = [scenarioOf(sources.settingScenario, 'setting promptInsight.compare.scenario'), 'setting'];
  const byKey = new Map<string, Objective>();
  const add = (objectives: Objective[]) => objectives.forEach((o) => byKey.set(objectiveKey(o), o));
  add(SCENARIO_RULES[scenario].defaultSlo);
  if (sources.tests) add(objectivesFromBlock(sources.tests.slo, sources.tests.where));
  if (sources.prompt) add(objectivesFromBlock(sources.prompt.slo, sources.prompt.where));
  add((sources.cliSlo ?? []).map(objectiveFromText));
  return { scenario, scenarioSource, objectives: [...byKey.values()] };
}

export function policyText(policy: RolloutPolicy): string {
  return `${policy.scenario} (${policy.scenarioSource}) · SLOs: ${policy.objectives.length > 0 ? policy.objectives.map(objectiveLabel).join(', ') : 'none'}`;
}
