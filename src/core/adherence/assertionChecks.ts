/**
 * The assertions that read only the answer and the run's times (everything but the LLM judges),
 * each in time linear in the answer: substring checks, RE2 regexes (boundedRegex.ts), a linear JSON
 * search (jsonInText.ts), schemas with RE2 patterns (schemaCheck.ts). An answer longer than
 * MAX_SCORED_ANSWER_CHARS is not read at all: its content assertions are undecided, with that reason.
 * Verdicts are facts about the answer before `not-` is applied ("the answer has \"Townhouse\""), so
 * the same reason reads right for an assertion and its negation. This module runs in the scoring
 * worker (scoreWorker.ts) and, where that is not built (tests from source), in the caller's thread.
 */
import { testRegex } from './boundedRegex';
import { parseJson, searchJson, stripFence } from './jsonInText';
import { checkSchema } from './schemaCheck';
import type { Assertion } from './testCases';
import { renderTemplate } from '../formats/template';
import { JUDGE_TYPES, oversizeReason, quote, type CheckInput, type CheckVerdict } from './checkText';

export { JUDGE_TYPES, MAX_SCORED_ANSWER_CHARS, oversizeReason, quote, type CheckInput, type CheckVerdict } from './checkText';

const TIMING_TYPES: ReadonlySet<Assertion['type']> = new Set(['latency', 'ttft']);

const holds = (reason: string): CheckVerdict => ({ decided: true, holds: true, reason });
const fails = (reason: string): CheckVerdict => ({ decided: true, holds: false, reason });
const undecided = (reason: string): CheckVerdict => ({ decided: false, reason });
const verdict = (ok: boolean, yes: string, no: string): CheckVerdict => (ok ? holds(yes) : fails(no));

export async function evaluateChecks(assertions: readonly Assertion[], input: CheckInput): Promise<CheckVerdict[]> {
  const verdicts: CheckVerdict[] = [];
  for (const assertion of assertions) verdicts.push(await evaluateCheck(assertion, input));
  return verdicts;
}

export async function evaluateCheck(assertion: Assertion, input: CheckInput): Promise<CheckVerdict> {
  if (TIMING_TYPES.has(assertion.type)) return timingCheck(assertion, input);
  if (JUDGE_TYPES.has(assertion.type)) return undecided('an LLM judge assertion is not checked here');
  const tooLong = oversizeReason(input.answer);
  if (tooLong) return undecided(tooLong);
  const output = input.answer;
  const value = typeof assertion.value === 'string' ? renderTemplate(assertion.value, 'mustache', input.vars).text : assertion.value;
  const strings = (Array.isArray(value) ? value : [value]).filter((v) => v !== undefined).map(String);
  switch (assertion.type) {
    case 'equals':
      return equalsCheck(output, value);
    case 'contains':
      return containsCheck(output, String(value), assertion.ignoreCase === true);
    case 'icontains':
      return containsCheck(output, String(value), true);
    case 'contains-any':
    case 'icontains-any': {
      const ignoreCase = assertion.type === 'icontains-any';
      const hit = strings.map((s) => find(output, s, ignoreCase)).find((h) => h !== undefined);
      return verdict(hit !== undefined, `the answer has ${quote(hit ?? '')}`, `the answer has none of ${JSON.stringify(strings)}${ignoreCase ? ' in any case' : ' (case-sensitive)'}`);
    }
    case 'contains-all':
    case 'icontains-all': {
      const ignoreCase = assertion.type === 'icontains-all';
      const missing = strings.filter((s) => find(output, s, ignoreCase) === undefined);
      return verdict(missing.length === 0, `the answer has all of ${JSON.stringify(strings)}`, `the answer lacks ${missing.map((m) => quote(m)).join(', ')}${ignoreCase ? ' in any case' : ' (case-sensitive)'}`);
    }
    case 'starts-with':
    case 'ends-with':
      return edgeCheck(output, String(value), assertion.type === 'starts-with' ? 'start' : 'end', assertion.ignoreCase === true);
    case 'regex': {
      const outcome = await testRegex(String(value), output);
      if ('error' in outcome) return undecided(`regex /${String(value)}/: ${outcome.error}`);
      return verdict(outcome.matched, `the answer matches /${String(value)}/`, `the answer does not match /${String(value)}/`);
    }
    case 'is-json': {
      const parsed = parseJson(stripFence(output));
      if (!parsed.ok) return fails('the answer is not valid JSON');
      return value !== undefined ? schemaVerdict(value, parsed.value) : holds('the answer is valid JSON');
    }
    case 'contains-json': {
      const search = searchJson(output);
      if (!search.found) return search.exhausted ? undecided('the search for JSON in the answer stopped at its work limit') : fails('the answer contains no JSON object or array');
      return value !== undefined ? schemaVerdict(value, search.value) : holds('the answer contains JSON');
    }
    case 'json-schema': {
      const whole = parseJson(stripFence(output));
      const search = whole.ok ? { found: true as const, value: whole.value } : searchJson(output);
      if (!search.found) return search.exhausted ? undecided('the search for JSON in the answer stopped at its work limit') : fails('the answer is not JSON, so the schema cannot hold');
      return schemaVerdict(value, search.value);
    }
    case 'word-count':
      return boundsCheck(countWords(output), value, 'words');
    case 'length':
      return boundsCheck(countCodePoints(output), value, 'characters');
  }
  return undecided(`assertion type '${assertion.type}' is not known`);
}

function timingCheck(assertion: Assertion, input: CheckInput): CheckVerdict {
  const [name, ms] = assertion.type === 'latency' ? ['E2E', input.e2eMs] : ['TTFT', input.ttftMs];
  if (ms === null) return undecided(`the run has no ${name} time`);
  const bound = assertion.threshold!;
  return verdict(ms <= bound, `${name} ${Math.round(ms)} ms ≤ ${bound} ms`, `${name} ${Math.round(ms)} ms > ${bound} ms`);
}

/** Where `needle` occurs in `text`: the text as it appears there (its own case), or undefined. */
function find(text: string, needle: string, ignoreCase: boolean): string | undefined {
  if (!ignoreCase) return text.includes(needle) ? needle : undefined;
  const lower = text.toLowerCase();
  const at = lower.indexOf(needle.toLowerCase());
  // toLowerCase keeps UTF-16 length for all but a few letters (İ); then the needle itself is shown.
  return at < 0 ? undefined : lower.length === text.length ? text.slice(at, at + needle.length) : needle;
}

function containsCheck(output: string, needle: string, ignoreCase: boolean): CheckVerdict {
  const hit = find(output, needle, ignoreCase);
  if (hit !== undefined) return holds(`the answer has ${quote(hit)}${ignoreCase && hit !== needle ? ` (any case: ${quote(needle)})` : ''}`);
  if (ignoreCase) return fails(`the answer does not have ${quote(needle)} in any case`);
  const otherCase = find(output, needle, true);
  return fails(otherCase !== undefined ? `expected ${quote(needle)} (case-sensitive); the answer has ${quote(otherCase)}` : `the answer does not have ${quote(needle)}`);
}

function edgeCheck(output: string, needle: string, edge: 'start' | 'end', ignoreCase: boolean): CheckVerdict {
  const text = edge === 'start' ? output.trimStart() : output.trimEnd();
  const piece = edge === 'start' ? text.slice(0, needle.length) : text.slice(Math.max(0, text.length - needle.length));
  const same = ignoreCase ? piece.toLowerCase() === needle.toLowerCase() : piece === needle;
  const verb = edge === 'start' ? 'starts' : 'ends';
  if (same) return holds(`the answer ${verb} with ${quote(piece)}`);
  const caseOnly = !ignoreCase && piece.toLowerCase() === needle.toLowerCase();
  return fails(`the answer ${verb} with ${quote(piece || text.slice(0, 30))}, not ${quote(needle)}${caseOnly ? ' (case-sensitive)' : ''}`);
}

function equalsCheck(output: string, expected: unknown): CheckVerdict {
  if (typeof expected === 'string') {
    return verdict(output.trim() === expected.trim(), `the answer equals ${quote(expected)}`, `the answer is ${quote(output.trim())}, not ${quote(expected.trim())}`);
  }
  const parsed = parseJson(output);
  if (!parsed.ok) return fails(`the answer is not JSON, so it cannot equal ${quote(JSON.stringify(expected))}`);
  return verdict(JSON.stringify(parsed.value) === JSON.stringify(expected), `the answer equals ${quote(JSON.stringify(expected))}`, `the answer is ${quote(JSON.stringify(parsed.value))}, not ${quote(JSON.stringify(expected))}`);
}

function schemaVerdict(schema: unknown, value: unknown): CheckVerdict {
  const outcome = checkSchema(schema, value);
  if ('unusable' in outcome) return undecided(outcome.unusable);
  return outcome.valid ? holds('the answer matches the JSON schema') : fails(`the answer does not match the schema: ${outcome.errors}`);
}

function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = /\s/.test(text[i]!);
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return words;
}

function countCodePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff || i === 0 || (text.charCodeAt(i - 1) & 0xfc00) !== 0xd800) count++;
  }
  return count;
}

function boundsCheck(count: number, value: unknown, unit: string): CheckVerdict {
  const bounds = typeof value === 'number' ? { min: value, max: value } : ((value ?? {}) as { min?: unknown; max?: unknown });
  const min = typeof bounds.min === 'number' ? bounds.min : -Infinity;
  const max = typeof bounds.max === 'number' ? bounds.max : Infinity;
  const wanted = `wanted ${Number.isFinite(min) ? min : 0}–${Number.isFinite(max) ? max : '∞'}`;
  return verdict(count >= min && count <= max, `${count} ${unit} (${wanted})`, `${count} ${unit} (${wanted})`);
}
