/**
 * Jinja2 templates (Prompty's default `template.format`) rendered with nunjucks, a maintained
 * Jinja-compatible engine, with its Jinja compatibility layer.
 *
 * nunjucks is not a sandbox: compiled templates look members up on live JavaScript objects, so
 * `range.constructor("…")()` reaches `Function` and runs code. Prompt files come from repositories
 * we do not trust and the language server renders them as they open, so member lookups here refuse
 * the names that lead from a value to its constructor or prototype, and refuse every member of a
 * function; no template loader is configured (`include`/`import`/`extends` cannot read files); and
 * `range()` is capped. Time and memory are bounded by the caller (renderer.ts runs this in a worker).
 */
import nunjucks from 'nunjucks';
import type { EngineResult } from './engineResult';

const BLOCKED_MEMBERS = new Set([
  'constructor', '__proto__', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__',
  'caller', 'callee', 'arguments', 'bind', 'call', 'apply', 'valueOf', 'toString', 'toLocaleString',
]);
const RANGE_LIMIT = 10_000;
/** Python's str methods that Jinja2 templates call (`name.upper()`); nunjucks has them only as filters. */
const STRING_METHODS: Record<string, (text: string, ...args: unknown[]) => unknown> = {
  upper: (t) => t.toUpperCase(),
  lower: (t) => t.toLowerCase(),
  strip: (t) => t.trim(),
  lstrip: (t) => t.trimStart(),
  rstrip: (t) => t.trimEnd(),
  title: (t) => t.replace(/\w\S*/g, (w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase()),
  capitalize: (t) => t.charAt(0).toUpperCase() + t.slice(1).toLowerCase(),
  startswith: (t, prefix) => t.startsWith(String(prefix)),
  endswith: (t, suffix) => t.endsWith(String(suffix)),
  replace: (t, from, to) => t.split(String(from)).join(String(to)),
  split: (t, separator) => (separator === undefined ? t.trim().split(/\s+/) : t.split(String(separator))),
};
const GLOBALS = new Set(['range', 'cycler', 'joiner', 'loop', 'super', 'caller', 'True', 'False', 'None', 'true', 'false', 'none']);

let installed = false;
let missing: Set<string> | undefined;

function installGuards(): void {
  if (installed) return;
  installed = true;
  nunjucks.installJinjaCompat();
  const runtime = (nunjucks as unknown as { runtime: Record<string, (...args: unknown[]) => unknown> }).runtime;
  const memberLookup = runtime.memberLookup!;
  runtime.memberLookup = function guardedMemberLookup(this: unknown, obj: unknown, name: unknown, ...rest: unknown[]) {
    if (typeof obj === 'function') throw new Error(`template accessed a member '${String(name)}' of a function; refused`);
    if (typeof name !== 'string' && typeof name !== 'number') throw new Error('template used a non-text member name; refused');
    if (BLOCKED_MEMBERS.has(String(name))) throw new Error(`template accessed '${String(name)}'; refused (it leads out of the data)`);
    if (typeof obj === 'string' && typeof name === 'string' && Object.prototype.hasOwnProperty.call(STRING_METHODS, name)) {
      const method = STRING_METHODS[name]!;
      return (...args: unknown[]) => method(obj, ...args);
    }
    return memberLookup.call(this, obj, name, ...rest);
  };
  const contextOrFrameLookup = runtime.contextOrFrameLookup!;
  runtime.contextOrFrameLookup = function recordingLookup(this: unknown, context: unknown, frame: unknown, name: unknown) {
    const value = contextOrFrameLookup.call(this, context, frame, name);
    if (value === undefined && typeof name === 'string' && !GLOBALS.has(name)) missing?.add(name);
    return value;
  };
}

function cappedRange(start: number, stop?: number, step = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (![from, to, step].every(Number.isFinite) || step === 0) throw new Error('range() needs finite numbers and a non-zero step');
  const length = Math.max(0, Math.ceil((to - from) / step));
  if (length > RANGE_LIMIT) throw new Error(`range() of ${length} items refused (limit ${RANGE_LIMIT})`);
  return Array.from({ length }, (_, i) => from + i * step);
}

let environment: nunjucks.Environment | undefined;

function env(): nunjucks.Environment {
  installGuards();
  if (!environment) {
    environment = new nunjucks.Environment([], { autoescape: false, throwOnUndefined: false });
    environment.addGlobal('range', cappedRange);
  }
  return environment;
}

export function renderJinja(template: string, data: Record<string, unknown>): EngineResult {
  const seen = new Set<string>();
  missing = seen;
  try {
    return { text: env().renderString(template, structuredClone(data)), missing: [...seen] };
  } catch (error) {
    return { error: templateError(error) };
  } finally {
    missing = undefined;
  }
}

function templateError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // nunjucks prefixes "(unknown path)" and a stack-like trace; keep the first meaningful lines.
  return message.replace(/^\(unknown path\)\s*/, '').split('\n').slice(0, 3).join(' ').trim();
}
