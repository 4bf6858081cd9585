import { defineConfig } from 'vitest/config';
import { tomlAsJson } from './test/fixtures/tomlAsJson';

// End-to-end suite: real code-server + Chromium, and the real inference engine (llama-server);
// tools from test/e2e/install-tools.sh.
export default defineConfig({
  plugins: [tomlAsJson],
  test: {
    include: ['test/e2e/**/*.e2e.test.ts', 'test/engine/**/*.engine.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest-e2e.json' },
  },
});
