/**
 * Values as the OTLP JSON mapping writes them: attributes as `{key, value: {stringValue | intValue |
 * doubleValue | boolValue | kvlistValue}}`, int64 as decimal strings (numbers accepted), trace and span ids
 * in hex or, as some exporters write them, base64. Nothing here throws on what a file holds.
 */

export type AttributeMap = Map<string, string | number | boolean>;

type AnyValue = { stringValue?: unknown; intValue?: unknown; doubleValue?: unknown; boolValue?: unknown; kvlistValue?: unknown };

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One AnyValue as a plain value; arrays and maps are left out (undefined). */
function plainValue(value: unknown): string | number | boolean | undefined {
  if (!isObject(value)) return undefined;
  const v = value as AnyValue;
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (v.intValue !== undefined) {
    const n = Number(v.intValue);
    return Number.isFinite(n) ? n : undefined;
  }
  if (typeof v.doubleValue === 'number' || typeof v.doubleValue === 'string') {
    const n = Number(v.doubleValue);
    return Number.isFinite(n) ? n : undefined;
  }
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  return undefined;
}

/** Items of an OTLP array or map read at most, and their nesting: a hostile file cannot make a value large. */
const MAX_STRUCTURED_ITEMS = 1_000;
const MAX_STRUCTURED_DEPTH = 8;

/** One AnyValue with its arrays (`arrayValue`) and maps (`kvlistValue`) as JS arrays and objects; bounded. */
export function structuredValue(value: unknown, depth = 0): unknown {
  if (!isObject(value) || depth > MAX_STRUCTURED_DEPTH) return undefined;
  if (isObject(value.arrayValue)) {
    const items = Array.isArray(value.arrayValue.values) ? value.arrayValue.values.slice(0, MAX_STRUCTURED_ITEMS) : [];
    return items.map((item) => structuredValue(item, depth + 1));
  }
  if (isObject(value.kvlistValue)) {
    const out: Record<string, unknown> = {};
    const entries = Array.isArray(value.kvlistValue.values) ? value.kvlistValue.values.slice(0, MAX_STRUCTURED_ITEMS) : [];
    for (const kv of entries) if (isObject(kv) && typeof kv.key === 'string' && kv.key !== '__proto__') out[kv.key] = structuredValue(kv.value, depth + 1);
    return out;
  }
  return plainValue(value);
}

/** Attribute list → map of plain values (arrays are not needed by the importer and are left out). */
export function attributeMap(list: unknown): AttributeMap {
  const map: AttributeMap = new Map();
  if (!Array.isArray(list)) return map;
  for (const kv of list) {
    if (!isObject(kv) || typeof kv.key !== 'string') continue;
    const value = plainValue(kv.value);
    if (value !== undefined) map.set(kv.key, value);
  }
  return map;
}

/** A log record's body as a map: a `kvlistValue` body's entries, or a string body under `content`. */
export function bodyMap(body: unknown): AttributeMap {
  if (isObject(body) && isObject(body.kvlistValue)) return attributeMap(body.kvlistValue.values);
  const plain = plainValue(body);
  return typeof plain === 'string' ? new Map([['content', plain]]) : new Map();
}

export function firstString(attributes: ReadonlyMap<string, unknown>, names: readonly string[]): string | null {
  for (const name of names) {
    const value = attributes.get(name);
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (typeof value === 'number') return String(value);
  }
  return null;
}

export function firstNumber(attributes: ReadonlyMap<string, unknown>, names: readonly string[]): number | null {
  for (const name of names) {
    const n = numberOf(attributes.get(name));
    if (n !== null) return n;
  }
  return null;
}

export function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** null = absent; undefined = present but not a plausible count (negative, fractional, beyond 2^40). */
export function tokenCount(value: unknown): number | null | undefined {
  if (value === undefined) return null;
  const n = numberOf(value);
  if (n === null || n < 0 || !Number.isInteger(n) || n > 2 ** 40) return undefined;
  return n;
}

const MAX_DATE_MS = 8.64e15;

/** Unix nanoseconds (decimal string or number) → ms; null when missing, not a number, before 1970 or beyond a Date. */
export function nanosToMs(value: unknown): number | null {
  let n: number;
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) n = Number(value);
  else if (typeof value === 'number' && Number.isFinite(value)) n = value;
  else return null;
  if (n <= 0) return null;
  // Beyond what a Date holds (±8.64e15 ms) a time would throw wherever it is printed: not a time.
  const ms = n / 1e6;
  return ms <= MAX_DATE_MS ? ms : null;
}

const HEX_ID = /^[0-9a-fA-F]+$/;
const BASE64_ID = /^[A-Za-z0-9+/]+={0,2}$/;

/** A valid id (validId) in lowercase hex. */
export function hexId(value: string, bytes: number): string {
  return value.length === bytes * 2 && HEX_ID.test(value) ? value.toLowerCase() : Buffer.from(value, 'base64').toString('hex');
}

/** A trace (16 bytes) or span (8 bytes) id in hex, or in base64 as some exporters write it; all zeros is invalid. */
export function validId(value: unknown, bytes: number): boolean {
  if (typeof value !== 'string') return false;
  let decoded: Buffer;
  if (value.length === bytes * 2 && HEX_ID.test(value)) decoded = Buffer.from(value, 'hex');
  else if (value.length === Math.ceil(bytes / 3) * 4 && BASE64_ID.test(value)) decoded = Buffer.from(value, 'base64');
  else return false;
  return decoded.length === bytes && decoded.some((b) => b !== 0);
}
