import type { YAMLMap } from 'yaml';
import type { OffsetRange, PromptDiagnostic } from './model';
import { childNode, isPlainRecord, nodeRange } from './yaml';

export type FieldKind = 'string' | 'number' | 'boolean' | 'map' | 'list';

/**
 * Reads typed fields of a parsed YAML mapping and reports wrong types at the exact node,
 * so a malformed field degrades to "missing" with a diagnostic instead of a crash.
 */
export class FieldReader {
  constructor(
    readonly data: Record<string, unknown>,
    private readonly node: YAMLMap | undefined,
    private readonly baseOffset: number,
    private readonly fallbackRange: OffsetRange,
    private readonly diagnostics: PromptDiagnostic[],
    private readonly path = '',
  ) {}

  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.data, key) && this.data[key] !== null && this.data[key] !== undefined;
  }

  rangeOf(key: string): OffsetRange {
    return nodeRange(childNode(this.node, key), this.baseOffset, this.fallbackRange);
  }

  string(key: string): string | undefined {
    return this.typed(key, ['string', 'number'], (v): v is string | number => typeof v === 'string' || typeof v === 'number')?.toString();
  }

  number(key: string): number | undefined {
    return this.typed(key, ['number'], (v): v is number => typeof v === 'number' && Number.isFinite(v));
  }

  map(key: string): FieldReader | undefined {
    const value = this.typed(key, ['map'], isPlainRecord);
    if (!value) return undefined;
    const child = childNode(this.node, key) as YAMLMap | undefined;
    return new FieldReader(value, child, this.baseOffset, this.rangeOf(key), this.diagnostics, `${this.path}${key}.`);
  }

  list(key: string): unknown[] | undefined {
    return this.typed(key, ['list'], Array.isArray);
  }

  /** Raw value, for fields that accept several shapes. */
  raw(key: string): unknown {
    return this.has(key) ? this.data[key] : undefined;
  }

  childNode(key: string): unknown {
    return childNode(this.node, key);
  }

  report(key: string, message: string): void {
    this.diagnostics.push({ range: this.rangeOf(key), severity: 'error', code: 'invalid-field', message });
  }

  private typed<T>(key: string, kinds: FieldKind[], guard: (v: unknown) => v is T): T | undefined {
    if (!this.has(key)) return undefined;
    const value = this.data[key];
    if (guard(value)) return value;
    this.report(key, `'${this.path}${key}' should be ${kinds.map(article).join(' or ')}, not ${describe(value)}; it is ignored.`);
    return undefined;
  }
}

function article(kind: FieldKind): string {
  return kind === 'map' ? 'a mapping' : kind === 'list' ? 'a list' : `a ${kind}`;
}

export function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value}`;
}
