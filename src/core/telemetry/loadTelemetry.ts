/**
 * The OpenTelemetry SDK is loaded only when telemetry is on. Bundles read it from dist/telemetry.js,
 * beside themselves (esbuild.mjs), so the extension, server and CLI bundles do not carry it; from
 * source (tests) it is imported directly.
 */
import * as path from 'node:path';

export type TelemetryModule = typeof import('./otelExport');

export async function loadTelemetry(): Promise<TelemetryModule> {
  if (process.env.PROMPT_INSIGHT_BUNDLED !== '1') return import('./otelExport');
  // A computed path: esbuild leaves this require to run time instead of inlining the SDK.
  const file = path.join(__dirname, 'telemetry.js');
  return require(file) as TelemetryModule;
}
