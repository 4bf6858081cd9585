/**
 * One policy per prompt: the scenario and SLOs that `load` and Find Capacity hold a prompt to are the
 * ones `compare` judges it by — from `--scenario`/`--slo`, the prompt file, its tests file (`scenario:`
 * and `slo:` at its top) or the setting — resolved the same way (rollout/scenario.ts).
 */
import { loadTestSuite } from '../adherence/testCases';
import { detectFormat } from '../formats/detect';
import type { PromptRunPlan } from '../run/promptRun';
import { resolvePolicy, type PolicySources, type RolloutPolicy } from '../rollout/scenario';

/** `file` as the reader names it (where the tests file sits beside it); `text` its content; `plan` the prompt planned from it. */
export function promptPolicy(file: string, text: string, plan: PromptRunPlan, outside: Pick<PolicySources, 'cliScenario' | 'cliSlo' | 'settingScenario'>, where = file): RolloutPolicy {
  const suite = loadTestSuite(file, text, detectFormat(file, text), plan.prompt);
  return resolvePolicy({
    ...outside,
    ...(plan.prompt.rollout ? { prompt: { where, ...plan.prompt.rollout } } : {}),
    ...(suite.rollout ? { tests: { where: suite.source, ...suite.rollout } } : {}),
  });
}
