/**
 * `npm run test:vscode`: the integration suite in a downloaded VS Code with @vscode/test-electron
 * (the design card's package). It needs internet to download VS Code; on machines without it the
 * same suite runs inside code-server (test/e2e/suite.e2e.test.ts).
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { buildSuite } from './buildSuite';

async function main(): Promise<void> {
  const { suiteFile } = await buildSuite();
  const workspace = mkdtempSync(join(tmpdir(), 'pi-vscode-'));
  cpSync('examples/homes', workspace, { recursive: true });
  cpSync('test/vscode/broken.prompty', join(workspace, 'broken.prompty'));
  await runTests({ extensionDevelopmentPath: resolve('.'), extensionTestsPath: suiteFile, launchArgs: [workspace, '--disable-workspace-trust', '--disable-extensions'] });
}

main().catch((error) => {
  console.error(`test:vscode failed: ${(error as Error).message}`);
  process.exit(1);
});
