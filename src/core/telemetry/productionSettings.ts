/**
 * `promptInsight.production.sources`: where the editor reads production numbers from — OTLP JSON Lines
 * trace files (a path or glob inside the workspace) or a Prometheus server — each over a window
 * (`since`, default 24h). Settings arrive from the user's configuration: what is well-typed is taken,
 * the rest is dropped with a reason the server logs.
 */

export type ProductionSource =
  | { kind: 'traces'; traces: string; since: string }
  | { kind: 'prometheus'; prometheus: string; since: string };

export interface ProductionSettings {
  sources: ProductionSource[];
  /** Entries left out, with why (logged by the server). */
  problems: string[];
}

export const DEFAULT_PRODUCTION_SINCE = '24h';
/** More than a handful of sources per workspace would make every hover a fleet query. */
export const MAX_PRODUCTION_SOURCES = 8;
const MAX_TEXT = 1000;
/** The windows both sources understand: a PromQL duration is also what `prod --since` takes. */
const SINCE = /^\d{1,5}[smhdw]$/;

export function readProductionSettings(value: unknown): ProductionSettings {
  const raw = (value as { sources?: unknown } | null | undefined)?.sources;
  const sources: ProductionSource[] = [];
  const problems: string[] = [];
  if (raw === undefined || raw === null) return { sources, problems };
  if (!Array.isArray(raw)) return { sources, problems: ['promptInsight.production.sources must be an array of { "traces": "path" } or { "prometheus": "http://…" } objects.'] };
  for (const [i, entry] of raw.entries()) {
    const where = `promptInsight.production.sources[${i}]`;
    if (sources.length >= MAX_PRODUCTION_SOURCES) {
      problems.push(`${where}: more than ${MAX_PRODUCTION_SOURCES} sources; the rest are left out.`);
      break;
    }
    const e = entry as { traces?: unknown; prometheus?: unknown; since?: unknown } | null;
    if (typeof e !== 'object' || e === null) {
      problems.push(`${where} is not an object.`);
      continue;
    }
    const since = e.since === undefined ? DEFAULT_PRODUCTION_SINCE : typeof e.since === 'string' && SINCE.test(e.since.trim()) ? e.since.trim() : undefined;
    if (since === undefined) {
      problems.push(`${where}.since must be a duration such as 30m, 24h, 7d or 2w.`);
      continue;
    }
    const traces = typeof e.traces === 'string' ? e.traces.trim() : undefined;
    const prometheus = typeof e.prometheus === 'string' ? e.prometheus.trim() : undefined;
    if ((traces !== undefined) === (prometheus !== undefined)) {
      problems.push(`${where} must have exactly one of "traces" (a path or glob inside the workspace) or "prometheus" (a URL).`);
      continue;
    }
    if (traces !== undefined) {
      if (!traces || traces.length > MAX_TEXT || traces.includes('\0')) problems.push(`${where}.traces must be a path or glob of at most ${MAX_TEXT} characters.`);
      else sources.push({ kind: 'traces', traces, since });
      continue;
    }
    if (!isHttpUrl(prometheus!)) problems.push(`${where}.prometheus must be an http:// or https:// URL of the Prometheus server (http://host:9090).`);
    else sources.push({ kind: 'prometheus', prometheus: prometheus!, since });
  }
  return { sources, problems };
}

function isHttpUrl(text: string): boolean {
  if (text.length > MAX_TEXT) return false;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** How a source is named in hovers and logs: never with credentials or query parameters. */
export function describeProductionSource(source: ProductionSource): string {
  if (source.kind === 'traces') return `traces ${source.traces}`;
  try {
    const url = new URL(source.prometheus);
    return `Prometheus ${url.origin}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return 'Prometheus';
  }
}
