/**
 * The JSON Schema of one stored run, checked on every read: a line that parses but has the wrong
 * types or impossible values (`ttftMs: "abc"`, `e2eMs: -1e308`) is skipped and counted, never
 * summarised into "TTFT NaN ms". Validated with @cfworker/json-schema (interpreted, no code
 * generation: it loads in a few milliseconds, which the language server's start needs).
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import { MAX_STATED_MS, MAX_STATED_TOKENS } from '../endpoint/jsonFields';

/** Longest duration accepted in a record: a day (the decoders drop any longer one a server states). */
const MAX_MS = MAX_STATED_MS;
const ms: Schema = { type: 'number', minimum: 0, maximum: MAX_MS };
const msOrNull: Schema = { type: ['number', 'null'], minimum: 0, maximum: MAX_MS };
const count: Schema = { type: ['integer', 'null'], minimum: 0, maximum: MAX_STATED_TOKENS };
const text: Schema = { type: 'string', maxLength: 1_000_000 };
const claims: Schema = { type: 'integer', minimum: 0, maximum: 100_000 };

/** A stored record's key (runKey.ts): what must be equal for two measurements to be of the same thing. */
export const RUN_KEY_SCHEMA: Schema = {
  type: 'object',
  required: ['promptHash', 'endpoint', 'model', 'paramsHash'],
  properties: { promptHash: { type: 'string' }, endpoint: { type: 'string' }, model: { type: 'string' }, paramsHash: { type: 'string' }, retrievalHash: { type: 'string' } },
};

export const STORED_RUN_SCHEMA: Schema = {
  type: 'object',
  required: ['v', 'id', 'at', 'key', 'file', 'prompt', 'endpointName', 'simulated', 'run', 'answer'],
  properties: {
    v: { const: 1 },
    id: { type: 'string', maxLength: 100 },
    at: { type: 'string', format: 'date-time' },
    key: RUN_KEY_SCHEMA,
    file: text,
    prompt: text,
    endpointName: text,
    simulated: { type: 'boolean' },
    revision: { type: 'string' },
    testCase: { type: 'integer', minimum: 0 },
    answer: { type: 'string' },
    answerTruncated: { type: 'boolean' },
    run: {
      type: 'object',
      required: ['ok', 'status', 'error', 'ttftMs', 'firstAnswerMs', 'e2eMs', 'streamEndMs', 'outputTokens', 'inputTokens', 'tpotMs', 'itlMs', 'finishReason', 'streamed', 'retries'],
      properties: {
        ok: { type: 'boolean' },
        status: { type: ['integer', 'null'], minimum: 0, maximum: 999 },
        error: { anyOf: [{ type: 'null' }, { type: 'object', required: ['kind', 'message'], properties: { kind: { type: 'string' }, message: text } }] },
        ttftMs: msOrNull,
        firstAnswerMs: msOrNull,
        e2eMs: msOrNull,
        streamEndMs: ms,
        outputTokens: count,
        outputTokensSource: { enum: ['usage', 'estimate', null] },
        inputTokens: count,
        inputTokensSource: { enum: ['usage', 'estimate', null] },
        tpotMs: msOrNull,
        itlMs: { type: 'array', items: ms },
        finishReason: { type: ['string', 'null'] },
        responseId: { type: 'string', minLength: 1, maxLength: 256 },
        streamed: { type: 'boolean' },
        retries: { type: 'integer', minimum: 0 },
        server: { type: 'object', properties: { ttftMs: ms, e2eMs: ms } },
        cachedInputTokens: count,
        cache: { enum: ['cold', 'warm', 'unknown'] },
        overlappedLeftover: text,
        phases: {
          anyOf: [
            { type: 'null' },
            { type: 'object', required: ['queueMs', 'prefillMs', 'decodeMs', 'source'], properties: { queueMs: msOrNull, prefillMs: ms, decodeMs: msOrNull, source: { type: 'string' } } },
          ],
        },
        simulated: { const: true },
        grounded: {
          type: 'object',
          required: ['hallucinated', 'supported', 'contradicted', 'notMentioned'],
          properties: { hallucinated: { type: ['boolean', 'null'] }, supported: claims, contradicted: claims, notMentioned: claims },
        },
      },
    },
  },
};

export function isValidStoredRun(value: unknown): boolean {
  return storedRunProblem(value) === undefined;
}

/** Where a record breaks the schema (`#/run/phases/prefillMs: …`), or undefined when it is valid. */
export const storedRunProblem = schemaProblem(() => STORED_RUN_SCHEMA);

/**
 * A record's first problem against a schema — the deepest error, the one that names the field — or
 * undefined when it is valid. The validator is built on first use (the language server's start does
 * not pay for it), once per schema.
 */
export function schemaProblem(schema: () => Schema): (value: unknown) => string | undefined {
  let validator: Validator | undefined;
  return (value) => {
    validator ??= new Validator(schema(), '2020-12', false);
    const result = validator.validate(value);
    if (result.valid) return undefined;
    const deepest = result.errors.reduce((a, b) => (b.instanceLocation.length > a.instanceLocation.length ? b : a));
    return `${deepest.instanceLocation}: ${deepest.error}`;
  };
}
