/**
 * When and where runs are exported (no SDK here: faces read this to decide whether to load it).
 * Off unless the user names an OTLP endpoint (`--otlp-endpoint URL`, the extension setting); the
 * standard OTEL_EXPORTER_OTLP_* variables then refine it (per-signal endpoints, headers, timeout),
 * read by the SDK itself. Headers only ever come from those variables, never from a flag or setting.
 */

export interface OtlpTarget {
  endpoint: string;
}

/** The endpoint as given, checked: http(s), no credentials or query in the URL (they would be logged and stored). */
export function otlpTargetOf(endpoint: string | undefined): OtlpTarget | { error: string } | undefined {
  if (endpoint === undefined || endpoint.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(endpoint.trim());
  } catch {
    return { error: `the OTLP endpoint '${endpoint}' is not a URL (expected e.g. http://127.0.0.1:4318)` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: 'the OTLP endpoint must be an http:// or https:// URL (OTLP/HTTP)' };
  if (url.username || url.password || url.search) return { error: 'the OTLP endpoint must not carry credentials or a query; put headers in OTEL_EXPORTER_OTLP_HEADERS' };
  return { endpoint: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

/**
 * Prompt and answer text go on spans only when the user opts in, with the variable OpenTelemetry's GenAI
 * instrumentations use: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
 */
export function captureContentFromEnv(env: Record<string, string | undefined> = process.env): boolean {
  return (env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? '').trim().toLowerCase() === 'true';
}
