/**
 * Scores one run's answer against a test case: each assertion passes or fails (LLM judges give a
 * score), the run's score is the weighted share passed, and the run passes at the case threshold.
 * A run that failed (error, partial stream) scores 0: a broken answer never counts as adherent.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import { testRegex } from './boundedRegex';
import { renderTemplate } from '../formats/template';
import type { Assertion, TestCase } from './testCases';

export interface ScoredRun {
  answer: string;
  ok: boolean;
  ttftMs: number | null;
  e2eMs: number | null;
  errorMessage?: string;
}

export interface AssertionResult {
  label: string;
  pass: boolean;
  score: number;
  weight: number;
  reason: string;
}

export interface CaseScore {
  score: number;
  pass: boolean;
  results: AssertionResult[];
}

/** Asks a judge model; returns its raw reply. Absent when no judge endpoint is configured. */
export type Judge = (messages: { role: string; content: string }[]) => Promise<string>;

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new Map<string, ValidateFunction>();

export async function scoreRun(testCase: TestCase, run: ScoredRun, judge?: Judge): Promise<CaseScore> {
  if (!run.ok) {
    const reason = `the run failed${run.errorMessage ? `: ${run.errorMessage}` : ''}`;
    return { score: 0, pass: false, results: testCase.assertions.map((a) => ({ label: a.label, pass: false, score: 0, weight: a.weight, reason })) };
  }
  const results: AssertionResult[] = [];
  for (const assertion of testCase.assertions) {
    const outcome = await evaluate(assertion, run, testCase.vars, judge);
    // An assertion that could not decide (a regex stopped at its deadline) fails, negated or not.
    const pass = outcome.undecided ? false : assertion.negate ? !outcome.pass : outcome.pass;
    // Judges grade on a scale; every other assertion is all or nothing.
    const graded = assertion.type === 'llm-rubric' || assertion.type === 'llm-choice';
    const score = outcome.undecided ? 0 : graded ? (assertion.negate ? 1 - outcome.score : outcome.score) : pass ? 1 : 0;
    results.push({ label: assertion.label, pass, score, weight: assertion.weight, reason: `${assertion.negate ? 'not: ' : ''}${outcome.reason}` });
  }
  const totalWeight = results.reduce((s, r) => s + r.weight, 0);
  const score = totalWeight === 0 ? 0 : results.reduce((s, r) => s + r.weight * (r.pass ? 1 : 0), 0) / totalWeight;
  return { score, pass: score >= testCase.threshold - 1e-12, results };
}

interface Outcome {
  pass: boolean;
  score: number;
  reason: string;
  undecided?: true;
}

const yes = (reason: string): Outcome => ({ pass: true, score: 1, reason });
const no = (reason: string): Outcome => ({ pass: false, score: 0, reason });
const verdict = (pass: boolean, reason: string): Outcome => (pass ? yes(reason) : no(reason));

async function evaluate(assertion: Assertion, run: ScoredRun, vars: Record<string, unknown>, judge: Judge | undefined): Promise<Outcome> {
  const output = run.answer;
  const value = typeof assertion.value === 'string' ? renderTemplate(assertion.value, 'mustache', vars).text : assertion.value;
  const strings = (Array.isArray(value) ? value : [value]).filter((v) => v !== undefined).map(String);
  const lower = output.toLowerCase();
  switch (assertion.type) {
    case 'equals':
      return verdict(typeof value === 'string' ? output.trim() === value.trim() : safeJson(output) !== undefined && JSON.stringify(safeJson(output)) === JSON.stringify(value), 'equals');
    case 'contains':
      return verdict(output.includes(String(value)), `contains ${JSON.stringify(value)}`);
    case 'icontains':
      return verdict(lower.includes(String(value).toLowerCase()), `contains ${JSON.stringify(value)} (any case)`);
    case 'contains-any':
      return verdict(strings.some((s) => output.includes(s)), `contains one of ${JSON.stringify(strings)}`);
    case 'icontains-any':
      return verdict(strings.some((s) => lower.includes(s.toLowerCase())), `contains one of ${JSON.stringify(strings)} (any case)`);
    case 'contains-all':
      return verdict(strings.every((s) => output.includes(s)), `contains all of ${JSON.stringify(strings)}`);
    case 'icontains-all':
      return verdict(strings.every((s) => lower.includes(s.toLowerCase())), `contains all of ${JSON.stringify(strings)} (any case)`);
    case 'starts-with':
      return verdict(output.trimStart().startsWith(String(value)), `starts with ${JSON.stringify(value)}`);
    case 'ends-with':
      return verdict(output.trimEnd().endsWith(String(value)), `ends with ${JSON.stringify(value)}`);
    case 'regex': {
      const outcome = await testRegex(String(value), output);
      return 'error' in outcome ? { ...no(`regex /${String(value)}/: ${outcome.error}`), undecided: true } : verdict(outcome.matched, `matches /${String(value)}/`);
    }
    case 'is-json': {
      const parsed = safeJson(stripFence(output));
      if (parsed === undefined) return no('is not valid JSON');
      return value !== undefined ? schemaOutcome(value, parsed) : yes('is valid JSON');
    }
    case 'contains-json': {
      const found = findJson(output);
      if (found === undefined) return no('contains no JSON value');
      return value !== undefined ? schemaOutcome(value, found) : yes('contains JSON');
    }
    case 'json-schema': {
      const parsed = safeJson(stripFence(output)) ?? findJson(output);
      if (parsed === undefined) return no('is not JSON, so the schema cannot hold');
      return schemaOutcome(value, parsed);
    }
    case 'word-count':
      return boundsOutcome(output.trim() ? output.trim().split(/\s+/).length : 0, value, 'words');
    case 'length':
      return boundsOutcome([...output].length, value, 'characters');
    case 'latency':
      return run.e2eMs === null ? no('no E2E time') : verdict(run.e2eMs <= assertion.threshold!, `E2E ${Math.round(run.e2eMs)} ms ≤ ${assertion.threshold} ms`);
    case 'ttft':
      return run.ttftMs === null ? no('no TTFT') : verdict(run.ttftMs <= assertion.threshold!, `TTFT ${Math.round(run.ttftMs)} ms ≤ ${assertion.threshold} ms`);
    case 'llm-rubric':
      return rubricOutcome(String(value ?? ''), output, assertion.threshold ?? 0.5, judge);
    case 'llm-choice':
      return choiceOutcome(assertion, output, vars, judge);
  }
}

function schemaOutcome(schema: unknown, value: unknown): Outcome {
  if (typeof schema !== 'object' || schema === null) return no('the json-schema value is not a schema object');
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    try {
      validate = ajv.compile(schema as object);
    } catch (error) {
      return no(`the schema is invalid: ${(error as Error).message}`);
    }
    compiled.set(key, validate);
  }
  return validate(value) ? yes('matches the JSON schema') : no(`does not match the schema: ${ajv.errorsText(validate.errors, { separator: '; ' })}`);
}

function boundsOutcome(count: number, value: unknown, unit: string): Outcome {
  const bounds = typeof value === 'number' ? { min: value, max: value } : (value ?? {}) as { min?: unknown; max?: unknown };
  const min = typeof bounds.min === 'number' ? bounds.min : -Infinity;
  const max = typeof bounds.max === 'number' ? bounds.max : Infinity;
  return verdict(count >= min && count <= max, `${count} ${unit} (wanted ${Number.isFinite(min) ? min : 0}–${Number.isFinite(max) ? max : '∞'})`);
}

async function rubricOutcome(rubric: string, output: string, threshold: number, judge: Judge | undefined): Promise<Outcome> {
  if (!judge) return no('no judge endpoint is configured for llm-rubric');
  let reply: string;
  try {
    reply = await judge([
    { role: 'system', content: 'You grade an AI answer against a rubric. Reply with only a JSON object: {"pass": true or false, "score": a number from 0 to 1, "reason": "one sentence"}.' },
    { role: 'user', content: `Rubric:\n${rubric}\n\nAnswer to grade:\n${output}` },
    ]);
  } catch (error) {
    return no(`the judge failed: ${(error as Error).message}`);
  }
  const parsed = parseJudgeVerdict(reply);
  if (!parsed) return no(`the judge's reply could not be read as a verdict: ${reply.slice(0, 120)}`);
  const pass = parsed.pass && parsed.score >= threshold;
  return { pass, score: parsed.score, reason: `judge: ${parsed.reason || (pass ? 'pass' : 'fail')} (score ${parsed.score.toFixed(2)})` };
}

/** A judge's verdict from JSON (possibly fenced or inside prose), else from PASS/FAIL words. */
export function parseJudgeVerdict(reply: string): { pass: boolean; score: number; reason: string } | undefined {
  const json = findJson(reply) as { pass?: unknown; score?: unknown; reason?: unknown; verdict?: unknown } | undefined;
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const score = typeof json.score === 'number' ? Math.max(0, Math.min(1, json.score)) : typeof json.pass === 'boolean' ? (json.pass ? 1 : 0) : undefined;
    const pass = typeof json.pass === 'boolean' ? json.pass : typeof json.verdict === 'string' ? /^pass|^yes/i.test(json.verdict) : score !== undefined ? score >= 0.5 : undefined;
    if (pass !== undefined && score !== undefined) return { pass, score, reason: typeof json.reason === 'string' ? json.reason : '' };
  }
  const word = /\b(PASS|FAIL|YES|NO)\b/i.exec(reply);
  if (!word) return undefined;
  const pass = /pass|yes/i.test(word[1]!);
  return { pass, score: pass ? 1 : 0, reason: reply.trim().slice(0, 200) };
}

async function choiceOutcome(assertion: Assertion, output: string, vars: Record<string, unknown>, judge: Judge | undefined): Promise<Outcome> {
  const spec = assertion.judge!;
  if (!judge) return no('no judge endpoint is configured for the llm evaluator');
  const prompt = renderTemplate(spec.prompt, 'mustache', { ...vars, completion: output }).text;
  let reply: string;
  try {
    reply = (await judge([...(spec.systemPrompt ? [{ role: 'system', content: spec.systemPrompt }] : []), { role: 'user', content: prompt }])).trim();
  } catch (error) {
    return no(`the judge failed: ${(error as Error).message}`);
  }
  const exact = spec.choices.find((c) => c.choice.toLowerCase() === reply.toLowerCase());
  const mentioned = exact ?? [...spec.choices].sort((a, b) => b.choice.length - a.choice.length).find((c) => reply.toLowerCase().includes(c.choice.toLowerCase()));
  if (!mentioned) return no(`the judge answered none of the choices (${spec.choices.map((c) => c.choice).join(', ')}): ${reply.slice(0, 80)}`);
  return { pass: mentioned.score >= (assertion.threshold ?? 0.5), score: mentioned.score, reason: `judge chose '${mentioned.choice}' (score ${mentioned.score})` };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/i.exec(text);
  return fenced ? fenced[1]! : text.trim();
}

/** The first JSON object or array embedded in text (brackets matched outside strings). */
export function findJson(text: string): unknown {
  for (let start = 0; start < text.length; start++) {
    const open = text[start];
    if (open !== '{' && open !== '[') continue;
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) {
          const value = safeJson(text.slice(start, i + 1));
          if (value !== undefined) return value;
          break;
        }
      }
    }
  }
  return undefined;
}
