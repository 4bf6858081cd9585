import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { tomlAsJson } from './test/fixtures/tomlAsJson';

// End-to-end suite: real code-server + Chromium, and the real inference engine (llama-server);
// tools from test/e2e/install-tools.sh.
//
// The Prometheus engine tests run twice: against Prometheus and against VictoriaMetrics (the same query
// API, another store). Outside CI a machine without VictoriaMetrics runs them against Prometheus only
// and says so; under CI=true a missing VictoriaMetrics fails those tests (install-tools.sh installs it).
const PROMETHEUS_TESTS = ['prodPrometheus', 'prodTimeline', 'watchPrometheus', 'otelPrometheus', 'prometheus', 'loadPrometheusCache'].map((name) => `test/engine/${name}.engine.test.ts`);
const VICTORIA = join(process.env.PROMPT_INSIGHT_TOOLS ?? resolve('.e2e-tools'), 'victoria-metrics/root/usr/bin/victoria-metrics');
const withVictoria = process.env.CI === 'true' || existsSync(VICTORIA);
if (!withVictoria) console.warn(`VictoriaMetrics is not installed at ${VICTORIA}: the Prometheus engine tests run against Prometheus only (bash test/engine/install-victoria.sh).`);

const shared = { testTimeout: 120_000, hookTimeout: 180_000 };
export default defineConfig({
  plugins: [tomlAsJson],
  test: {
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['test/fixtures/tempFolderSetup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest-e2e.json' },
    projects: [
      { test: { ...shared, name: 'e2e', include: ['test/e2e/**/*.e2e.test.ts', 'test/engine/**/*.engine.test.ts'] } },
      ...(withVictoria ? [{ test: { ...shared, name: 'victoria-metrics', include: PROMETHEUS_TESTS, env: { PROMPT_INSIGHT_PROMETHEUS_BACKEND: 'victoria-metrics' } } }] : []),
    ],
  },
});
