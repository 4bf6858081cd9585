import { defineConfig } from 'vitest/config';
import { tomlAsJson } from './test/fixtures/tomlAsJson';

export default defineConfig({
  plugins: [tomlAsJson],
  test: {
    include: ['test/unit/**/*.test.ts', 'test/server/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/fixtures/bpeWasmSetup.ts', 'test/fixtures/tempFolderSetup.ts'],
    // The JSON report lets .ci/run print a one-line total that CI can read.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest.json' },
  },
});
