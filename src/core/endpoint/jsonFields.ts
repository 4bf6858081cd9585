/** Typed reads of fields in untrusted JSON from endpoints: a wrong type reads as absent. */

/** The value of a JSON text, or undefined when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Longest response id kept: ids are short (`chatcmpl-…`, `msg_…`); anything longer is not one. */
export const MAX_RESPONSE_ID_CHARS = 256;

/** A response id a server states: printable ASCII up to MAX_RESPONSE_ID_CHARS, else absent (it goes into telemetry and the store). */
export function responseIdOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_RESPONSE_ID_CHARS && /^[\x21-\x7e]+$/.test(value) ? value : undefined;
}

export function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Most tokens a server may state for one request; the results store holds no larger count. */
export const MAX_STATED_TOKENS = 1e9;
/** Longest time a server may state for one request: a day; the results store holds no longer duration. */
export const MAX_STATED_MS = 86_400_000;

/**
 * A token count a server states: an integer from 0 to MAX_STATED_TOKENS, else absent. Checked here,
 * before a record is built, so that an answer with `eval_count: -1` or `1e300` is stored as a run
 * without that count rather than as a line the store cannot read back.
 */
export function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_STATED_TOKENS ? value : undefined;
}

/** A duration a server states, in ms once divided by `unitsPerMs` (1e6 for nanoseconds): 0 to MAX_STATED_MS, else absent. */
export function durationMsOf(value: unknown, unitsPerMs = 1): number | undefined {
  const raw = numberOf(value);
  if (raw === undefined) return undefined;
  const ms = raw / unitsPerMs;
  return ms <= MAX_STATED_MS ? ms : undefined;
}
