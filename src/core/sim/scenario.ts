/**
 * How the simulator chooses an answer: rules that map features of the prompt to answer
 * distributions, so a prompt revision that adds a rule really changes what comes back (the "homes"
 * case). It is a rehearsal tool and says so: answers are drawn from the file, never generated.
 */
import { parseYaml } from '../formats/yaml';

export interface WeightedAnswer {
  weight: number;
  text: string;
}

export interface ScenarioRule {
  /** The rule applies when the whole prompt (all messages) contains every one of these, case-insensitively. */
  whenPromptContains: string[];
  answers: WeightedAnswer[];
}

export interface SimScenario {
  /** The scenario covers only prompts that contain all of these; any other prompt gets a neutral answer. */
  appliesWhenPromptContains?: string[];
  rules: ScenarioRule[];
  /** Used when no rule applies. */
  answers: WeightedAnswer[];
}

export function parseScenario(text: string): SimScenario {
  const parsed = parseYaml(text, 0);
  const error = parsed.diagnostics.find((d) => d.severity === 'error');
  if (error) throw new Error(`scenario: ${error.message}`);
  const root = parsed.value as { rules?: unknown; answers?: unknown; appliesWhenPromptContains?: unknown } | null;
  if (!root || typeof root !== 'object') throw new Error('scenario: expected a mapping with `answers` and optional `rules`');
  const answers = readAnswers(root.answers, 'answers');
  const rules = Array.isArray(root.rules)
    ? root.rules.map((rule, i) => {
        const r = rule as { whenPromptContains?: unknown; answers?: unknown };
        const when = typeof r?.whenPromptContains === 'string' ? [r.whenPromptContains] : r?.whenPromptContains;
        if (!Array.isArray(when) || when.length === 0 || !when.every((w) => typeof w === 'string')) throw new Error(`scenario: rules[${i}].whenPromptContains must be a string or a list of strings`);
        return { whenPromptContains: when as string[], answers: readAnswers(r.answers, `rules[${i}].answers`) };
      })
    : [];
  const applies = typeof root.appliesWhenPromptContains === 'string' ? [root.appliesWhenPromptContains] : root.appliesWhenPromptContains;
  if (applies !== undefined && (!Array.isArray(applies) || !applies.every((w) => typeof w === 'string'))) throw new Error('scenario: appliesWhenPromptContains must be a string or a list of strings');
  return { ...(applies ? { appliesWhenPromptContains: applies as string[] } : {}), rules, answers };
}

/** What the simulator says to a prompt its scenario does not cover: nothing that looks like a real answer. */
export const NEUTRAL_ANSWER = 'This is a simulated answer. The simulator’s scenario does not cover this prompt, so it answers neutrally; run against a real endpoint for a real answer.';

function readAnswers(value: unknown, where: string): WeightedAnswer[] {
  if (!Array.isArray(value) || value.length === 0) throw new Error(`scenario: ${where} must be a non-empty list`);
  return value.map((item, i) => {
    const a = item as { weight?: unknown; text?: unknown } | string;
    if (typeof a === 'string') return { weight: 1, text: a };
    const weight = a?.weight === undefined ? 1 : a.weight;
    if (typeof a?.text !== 'string' || typeof weight !== 'number' || !(weight > 0)) throw new Error(`scenario: ${where}[${i}] needs text and a positive weight`);
    return { weight, text: a.text };
  });
}

/** The first rule whose phrases all occur in the prompt decides; else the default answers. */
export function chooseAnswer(scenario: SimScenario, promptText: string, random: () => number): string {
  const haystack = promptText.toLowerCase();
  if (scenario.appliesWhenPromptContains && !scenario.appliesWhenPromptContains.every((phrase) => haystack.includes(phrase.toLowerCase()))) return NEUTRAL_ANSWER;
  const rule = scenario.rules.find((r) => r.whenPromptContains.every((phrase) => haystack.includes(phrase.toLowerCase())));
  const answers = rule ? rule.answers : scenario.answers;
  const total = answers.reduce((sum, a) => sum + a.weight, 0);
  let pick = random() * total;
  for (const answer of answers) {
    pick -= answer.weight;
    if (pick < 0) return answer.text;
  }
  return answers[answers.length - 1]!.text;
}
