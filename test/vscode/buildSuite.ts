/** Bundles the integration suite (for test-electron) and the host extension (for code-server) into test-artifacts/vscode/. */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';

export async function buildSuite(): Promise<{ suiteFile: string; hostDir: string }> {
  const out = resolve('test-artifacts/vscode');
  const hostDir = join(out, 'prompt-insight.prompt-insight-suite-0.0.1');
  mkdirSync(hostDir, { recursive: true });
  const common = { bundle: true, platform: 'node' as const, format: 'cjs' as const, target: 'node20', external: ['vscode'], logLevel: 'warning' as const,
    // The suite computes expected counts with the engine, which reads NAME.ranks and bpe.wasm from beside its bundle like the real bundles do.
    plugins: [{ name: 'rank-tables', setup(build: esbuild.PluginBuild) { build.onResolve({ filter: /^gpt-tokenizer\/bpeRanks\/\w+$/ }, (args) => ({ path: `./missing-${args.path.split('/').pop()}.ranks.mjs`, external: true })); } }] };
  await esbuild.build({ ...common, entryPoints: ['test/vscode/suite.ts'], outfile: join(out, 'suite.js') });
  await esbuild.build({ ...common, entryPoints: ['test/vscode/host/extension.ts'], outfile: join(hostDir, 'extension.js') });
  copyFileSync('test/vscode/host/package.json', join(hostDir, 'package.json'));
  for (const file of ['o200k_base.ranks', 'cl100k_base.ranks', 'bpe.wasm']) for (const dir of [out, hostDir]) copyFileSync(`dist/${file}`, join(dir, file));
  return { suiteFile: join(out, 'suite.js'), hostDir };
}
