/**
 * A test-only extension that runs the integration suite inside code-server's extension host, where
 * @vscode/test-electron cannot reach: on start-up, if PI_SUITE_RESULTS names a file, it runs the
 * suite and writes the results there as JSON.
 */
import { writeFileSync } from 'node:fs';
import { runSuite } from '../suite';

export function activate(): void {
  const target = process.env.PI_SUITE_RESULTS;
  if (!target) return;
  void runSuite().then(
    (results) => writeFileSync(target, JSON.stringify({ results })),
    (error) => writeFileSync(target, JSON.stringify({ error: String(error) })),
  );
}

export function deactivate(): void {}
