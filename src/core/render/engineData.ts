/**
 * The data every template engine is given: a deep copy of JSON values in which no object and no
 * array has a prototype. A template that names `constructor`, `__proto__`, `valueOf` or
 * `toString` — at the top level, inside a section, on an array item — finds nothing, because
 * those names only exist on prototypes. Arrays stay arrays (`Array.isArray`, `length`, indices),
 * so engines still loop over them by index.
 *
 * Printing a container (`{{items}}`) must still give what the runtimes print ("1,2",
 * "[object Object]"), and libraries spread arrays (`[...history]`): each copy carries a
 * non-enumerable `Symbol.toPrimitive` (arrays also `Symbol.iterator`). A symbol key cannot be
 * written in any template language, so templates cannot look them up.
 */
export const MAX_DATA_DEPTH = 200;

export class EngineDataError extends Error {}

export function prototypeLessCopy(value: unknown, depth = 0): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null; // as JSON carries it
  if (typeof value !== 'object') return undefined; // functions, symbols, bigints: not data
  if (depth >= MAX_DATA_DEPTH) throw new EngineDataError(`the values are nested more than ${MAX_DATA_DEPTH} levels deep`);
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    Object.setPrototypeOf(copy, null);
    for (let i = 0; i < value.length; i++) copy[i] = prototypeLessCopy(value[i], depth + 1) ?? null;
    Object.defineProperty(copy, Symbol.iterator, { value: arrayItems, enumerable: false, writable: false, configurable: false });
    return printable(copy, arrayText);
  }
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(source)) {
    const item = prototypeLessCopy(source[key], depth + 1);
    if (item !== undefined) copy[key] = item;
  }
  return printable(copy, () => '[object Object]');
}

export function prototypeLessRecord(value: Record<string, unknown>): Record<string, unknown> {
  return prototypeLessCopy(value) as Record<string, unknown>;
}

function printable<T extends object>(copy: T, text: (this: T) => string): T {
  Object.defineProperty(copy, Symbol.toPrimitive, { value: text, enumerable: false, writable: false, configurable: false });
  return copy;
}

function* arrayItems(this: unknown[]): Generator<unknown> {
  for (let i = 0; i < this.length; i++) yield this[i];
}

/** Array.prototype.toString's text: items joined with commas, null and undefined as nothing. */
function arrayText(this: unknown[]): string {
  let text = '';
  for (let i = 0; i < this.length; i++) {
    if (i > 0) text += ',';
    const item = this[i];
    if (item !== null && item !== undefined) text += String(item);
  }
  return text;
}
