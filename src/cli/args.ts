/** A small, strict argument parser: unknown flags are errors, not silently ignored. */
export class UsageError extends Error {}

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
  /** Every value of a repeatable flag, in order. */
  lists: Map<string, string[]>;
}

export function parseArgs(argv: string[], spec: { valued: string[]; boolean: string[]; repeatable?: string[] }): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  const lists = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (spec.boolean.includes(name)) {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
    } else if (spec.valued.includes(name) || spec.repeatable?.includes(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
      if (spec.repeatable?.includes(name)) lists.set(name, [...(lists.get(name) ?? []), value]);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  return { positionals, flags, lists };
}

/** A numeric flag with bounds; absent → `fallback`. */
export function numberFlag(args: ParsedArgs, name: string, bounds: { min: number; max?: number; integer?: boolean }, fallback: number): number;
export function numberFlag(args: ParsedArgs, name: string, bounds: { min: number; max?: number; integer?: boolean }, fallback?: undefined): number | undefined;
export function numberFlag(args: ParsedArgs, name: string, bounds: { min: number; max?: number; integer?: boolean }, fallback?: number): number | undefined {
  const raw = args.flags.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  const kind = bounds.integer ? 'an integer' : 'a number';
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(value) || (bounds.integer && !Number.isInteger(value)) || value < bounds.min || (bounds.max !== undefined && value > bounds.max)) {
    throw new UsageError(`--${name} must be ${kind} ≥ ${bounds.min}${bounds.max !== undefined ? ` and ≤ ${bounds.max}` : ''} (got '${String(raw)}')`);
  }
  return value;
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const raw = args.flags.get(name);
  return typeof raw === 'string' ? raw : undefined;
}

/**
 * `--now 2026-12-05T08:55:00Z`: the moment a production command reads "now" as — to replay what it
 * would have said at an incident's hour (and for tests that must not depend on the hour they run at).
 * Spans that end after it are not counted. Default: this machine's clock.
 */
export function nowFlag(args: ParsedArgs): number {
  const raw = stringFlag(args, 'now');
  if (raw === undefined) return Date.now();
  const ms = Date.parse(raw);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(raw) || !Number.isFinite(ms)) throw new UsageError(`--now takes an ISO date and time such as 2026-12-05T08:55:00Z (got '${raw}')`);
  return ms;
}
