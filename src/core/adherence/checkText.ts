/**
 * What the checks and their callers share, apart from the checks themselves: verdict and input
 * types, the answer cap, which assertions a judge decides, and how reasons quote text. Kept out of
 * assertionChecks.ts so that code that only reads verdicts (the scorer, the judges) does not load
 * the checks' engines (Ajv, RE2) — in the bundles those run in the scoring worker alone.
 */
import type { Assertion } from './testCases';

/** Answers above this many UTF-16 units are not scored (about 125,000 tokens of English). */
export const MAX_SCORED_ANSWER_CHARS = 500_000;

export type CheckVerdict = { decided: true; holds: boolean; reason: string; score?: number } | { decided: false; reason: string };

export interface CheckInput {
  answer: string;
  vars: Record<string, unknown>;
  ttftMs: number | null;
  e2eMs: number | null;
}

/** Assertions a judge model decides (here they are never run): the rubric/choice judges and the grounded evaluators (groundedChecks.ts). */
export const JUDGE_TYPES: ReadonlySet<Assertion['type']> = new Set(['llm-rubric', 'llm-choice', 'faithfulness', 'context-faithfulness', 'hallucination', 'factuality', 'answer-correctness', 'context-recall', 'context-relevance', 'answer-relevance']);
/** `"text"` in reasons: JSON-quoted, shortened. */
export function quote(text: string, max = 60): string {
  const shown = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return JSON.stringify(shown);
}

/** Why an answer is not scored, or undefined when it is within the cap. */
export function oversizeReason(answer: string): string | undefined {
  if (answer.length <= MAX_SCORED_ANSWER_CHARS) return undefined;
  return `the answer is ${answer.length.toLocaleString('en-US')} characters; answers above ${MAX_SCORED_ANSWER_CHARS.toLocaleString('en-US')} are not scored`;
}
