/**
 * The assertions an LLM judge decides: promptfoo's `llm-rubric` and GitHub's `llm` evaluators
 * (`llm-choice`). A judge that is not configured, fails, or answers off-format leaves the assertion
 * UNDECIDED with that reason — never a fail, which would count a scoring problem against the prompt.
 * The judge's reply comes from an endpoint: it is capped before it is read, and read in linear time.
 */
import { oversizeReason, quote, type CheckInput, type CheckVerdict } from './checkText';
import { searchJson } from './jsonInText';
import type { Assertion } from './testCases';
import { renderTemplate } from '../formats/template';

/** Asks a judge model; returns its raw reply. Absent when no judge endpoint is configured. */
export type Judge = (messages: { role: string; content: string }[]) => Promise<string>;

export const NO_JUDGE_REASON = 'no judge configured (editor: promptInsight.judge.endpoint; CLI: --judge-endpoint and --judge-model)';
/** A verdict is a few words; a longer reply is read from its start. */
const MAX_JUDGE_REPLY_CHARS = 20_000;

export async function judgeCheck(assertion: Assertion, input: CheckInput, judge: Judge | undefined): Promise<CheckVerdict> {
  if (!judge) return { decided: false, reason: NO_JUDGE_REASON };
  const tooLong = oversizeReason(input.answer);
  if (tooLong) return { decided: false, reason: tooLong };
  return assertion.type === 'llm-choice' ? choiceCheck(assertion, input, judge) : rubricCheck(assertion, input, judge);
}

async function ask(judge: Judge, messages: { role: string; content: string }[]): Promise<{ reply: string } | { error: string }> {
  try {
    const reply = await judge(messages);
    return { reply: reply.length > MAX_JUDGE_REPLY_CHARS ? reply.slice(0, MAX_JUDGE_REPLY_CHARS) : reply };
  } catch (error) {
    return { error: `the judge failed: ${(error as Error).message}` };
  }
}

async function rubricCheck(assertion: Assertion, input: CheckInput, judge: Judge): Promise<CheckVerdict> {
  const rubric = typeof assertion.value === 'string' ? renderTemplate(assertion.value, 'mustache', input.vars).text : String(assertion.value ?? '');
  const asked = await ask(judge, [
    { role: 'system', content: 'You grade an AI answer against a rubric. Reply with only a JSON object: {"pass": true or false, "score": a number from 0 to 1, "reason": "one sentence"}.' },
    { role: 'user', content: `Rubric:\n${rubric}\n\nAnswer to grade:\n${input.answer}` },
  ]);
  if ('error' in asked) return { decided: false, reason: asked.error };
  const parsed = parseJudgeVerdict(asked.reply);
  if (!parsed) return { decided: false, reason: `the judge's reply is not a verdict: ${quote(asked.reply.trim(), 120)}` };
  const threshold = assertion.threshold ?? 0.5;
  const pass = parsed.pass && parsed.score >= threshold;
  return { decided: true, holds: pass, score: parsed.score, reason: `judge: ${parsed.reason || (pass ? 'pass' : 'fail')} (score ${parsed.score.toFixed(2)}, pass at ${threshold})` };
}

async function choiceCheck(assertion: Assertion, input: CheckInput, judge: Judge): Promise<CheckVerdict> {
  const spec = assertion.judge!;
  const prompt = renderTemplate(spec.prompt, 'mustache', { ...input.vars, completion: input.answer }).text;
  const asked = await ask(judge, [...(spec.systemPrompt ? [{ role: 'system', content: spec.systemPrompt }] : []), { role: 'user', content: prompt }]);
  if ('error' in asked) return { decided: false, reason: asked.error };
  const reply = asked.reply.trim();
  const lower = reply.toLowerCase();
  const exact = spec.choices.find((c) => c.choice.toLowerCase() === lower);
  const mentioned = exact ?? firstMentioned(lower, spec.choices);
  if (!mentioned) return { decided: false, reason: `the judge answered none of the choices (${spec.choices.map((c) => c.choice).join(', ')}): ${quote(reply, 80)}` };
  const threshold = assertion.threshold ?? 0.5;
  return { decided: true, holds: mentioned.score >= threshold, score: mentioned.score, reason: `the judge chose '${mentioned.choice}' (score ${mentioned.score}, pass at ${threshold})` };
}

/**
 * The choice the reply names first as a whole word ("No." → no; "not sure" names neither yes nor no),
 * so that a choice inside another word is not read as the judge's answer.
 */
function firstMentioned<T extends { choice: string }>(lowerReply: string, choices: readonly T[]): T | undefined {
  let best: { choice: T; at: number } | undefined;
  for (const choice of choices) {
    const word = choice.choice.toLowerCase();
    if (!word) continue;
    for (let at = lowerReply.indexOf(word); at >= 0; at = lowerReply.indexOf(word, at + 1)) {
      if (isWordChar(lowerReply[at - 1]) || isWordChar(lowerReply[at + word.length])) continue;
      if (!best || at < best.at || (at === best.at && word.length > best.choice.choice.length)) best = { choice, at };
      break;
    }
  }
  return best?.choice;
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[\p{L}\p{N}_]/u.test(c);
}

/** A judge's verdict from JSON (possibly fenced or inside prose), else from PASS/FAIL words. */
export function parseJudgeVerdict(reply: string): { pass: boolean; score: number; reason: string } | undefined {
  const capped = reply.length > MAX_JUDGE_REPLY_CHARS ? reply.slice(0, MAX_JUDGE_REPLY_CHARS) : reply;
  const search = searchJson(capped);
  const json = (search.found ? search.value : undefined) as { pass?: unknown; score?: unknown; reason?: unknown; verdict?: unknown } | undefined;
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const stated = typeof json.pass === 'boolean' ? json.pass : typeof json.verdict === 'string' && /^(pass|yes|fail|no)\b/i.test(json.verdict.trim()) ? /^(pass|yes)/i.test(json.verdict.trim()) : undefined;
    const score = typeof json.score === 'number' && Number.isFinite(json.score) ? Math.max(0, Math.min(1, json.score)) : stated !== undefined ? (stated ? 1 : 0) : undefined;
    const pass = stated ?? (score !== undefined ? score >= 0.5 : undefined);
    if (pass !== undefined && score !== undefined) return { pass, score, reason: typeof json.reason === 'string' ? json.reason.slice(0, 300) : '' };
    // A verdict object that cannot be read ({"pass": "maybe"}) is no verdict: its own key "pass" is not a PASS.
    if ('pass' in json || 'score' in json || 'verdict' in json) return undefined;
  }
  const word = /\b(PASS|FAIL|YES|NO)\b/i.exec(capped);
  if (!word) return undefined;
  const pass = /pass|yes/i.test(word[1]!);
  return { pass, score: pass ? 1 : 0, reason: capped.trim().slice(0, 200) };
}
