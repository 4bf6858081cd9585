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

/**
 * A judge of known error rates, for tests and demos of trust cards: asked to grade an answer against a
 * rubric, it knows the truth (the answer fails when it contains one of `failsWhenAnswerContains`, any case)
 * and says it with the given odds — fail for a failing answer with probability `sensitivity`, pass for a
 * passing one with probability `specificity` — drawn from the simulator's seeded random.
 */
export interface SimJudge {
  failsWhenAnswerContains: string[];
  sensitivity: number;
  specificity: number;
}

export interface SimScenario {
  /** Grades rubric questions with known error rates (see SimJudge). */
  judge?: SimJudge;
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
  const root = parsed.value as { rules?: unknown; answers?: unknown; appliesWhenPromptContains?: unknown; judge?: unknown } | null;
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
  const judge = root.judge === undefined ? undefined : readJudge(root.judge);
  return { ...(applies ? { appliesWhenPromptContains: applies as string[] } : {}), ...(judge ? { judge } : {}), rules, answers };
}

function readJudge(value: unknown): SimJudge {
  const j = value as { failsWhenAnswerContains?: unknown; sensitivity?: unknown; specificity?: unknown } | null;
  const fails = typeof j?.failsWhenAnswerContains === 'string' ? [j.failsWhenAnswerContains] : j?.failsWhenAnswerContains;
  if (!Array.isArray(fails) || fails.length === 0 || !fails.every((w) => typeof w === 'string' && w.length > 0)) throw new Error('scenario: judge.failsWhenAnswerContains must be a phrase or a list of phrases');
  const odds = (v: unknown, name: string): number => {
    if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new Error(`scenario: judge.${name} must be a number from 0 to 1`);
    return v;
  };
  return { failsWhenAnswerContains: fails as string[], sensitivity: odds(j!.sensitivity ?? 1, 'sensitivity'), specificity: odds(j!.specificity ?? 1, 'specificity') };
}

/** The system prompt the simulator's judge recognises (the rubric judge's own: adherence/judgeChecks.ts). */
const RUBRIC_QUESTION = 'You grade an AI answer against a rubric.';
const ANSWER_MARK = '\n\nAnswer to grade:\n';

/** The judge's reply to a rubric question, or undefined when the prompt is not one. */
export function judgeReply(judge: SimJudge, messages: readonly { role: string; content: string }[], random: () => number): string | undefined {
  if (!messages.some((m) => m.role === 'system' && m.content.startsWith(RUBRIC_QUESTION))) return undefined;
  const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const at = user.indexOf(ANSWER_MARK);
  const answer = (at >= 0 ? user.slice(at + ANSWER_MARK.length) : user).toLowerCase();
  const fails = judge.failsWhenAnswerContains.some((phrase) => answer.includes(phrase.toLowerCase()));
  const says = fails ? (random() < judge.sensitivity ? 'fail' : 'pass') : random() < judge.specificity ? 'pass' : 'fail';
  return JSON.stringify({ pass: says === 'pass', score: says === 'pass' ? 1 : 0, reason: `simulated judge (${fails ? 'the answer fails' : 'the answer passes'} by its rule; it says ${says})` });
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
