/**
 * `json-schema`, `is-json` and `contains-json` schemas, validated with Ajv whose regular expressions
 * (`pattern`, `patternProperties`) run on RE2JS — RE2's linear-time automaton — instead of
 * JavaScript's backtracking engine: a schema from a repository we do not trust with `^(a+)+$` ran
 * past 15 s on a 34-character value. A pattern RE2 cannot run (lookaround, backreferences) makes the
 * schema unusable, which is said, never tried. What Ajv itself may still spend (a huge `uniqueItems`
 * array) is bounded by the scoring worker's deadline (scoreWorkerClient.ts).
 */
import Ajv, { type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';

export type SchemaOutcome = { valid: true } | { valid: false; errors: string } | { unusable: string };

/** Ajv's regular-expression engine: RE2JS. `toString` is Ajv's cache key for a pattern, so it must name it. */
function re2Engine(pattern: string, unicode: string): { test: (s: string) => boolean; toString: () => string } {
  let program: RE2JS;
  try {
    program = RE2JS.compile(pattern);
  } catch (error) {
    throw new Error(`the schema's pattern /${pattern}/ cannot run in linear time (${(error as Error).message}); lookaround and backreferences are not supported`);
  }
  return { test: (s: string) => program.matcher(s).find(), toString: () => `re2:${unicode}:${pattern}` };
}
re2Engine.code = 're2js';

const ajv = new Ajv({ allErrors: true, strict: false, logger: false, code: { regExp: re2Engine } });

/** Compiled schemas by their text; a test file has a handful, the cap only guards against a hostile one. */
const compiled = new Map<string, ValidateFunction | string>();
const MAX_COMPILED = 256;
const MAX_ERROR_CHARS = 400;

export function checkSchema(schema: unknown, value: unknown): SchemaOutcome {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { unusable: 'the json-schema value is not a schema object' };
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    try {
      validate = ajv.compile(schema as object);
    } catch (error) {
      validate = `the schema is invalid: ${(error as Error).message}`;
    }
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, validate);
  }
  if (typeof validate === 'string') return { unusable: validate };
  if (validate(value)) return { valid: true };
  const errors = ajv.errorsText(validate.errors, { separator: '; ' });
  return { valid: false, errors: errors.length > MAX_ERROR_CHARS ? `${errors.slice(0, MAX_ERROR_CHARS - 1)}…` : errors };
}
