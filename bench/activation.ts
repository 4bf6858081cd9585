/**
 * Activation in the real host: code-server (VS Code 1.139) with the packaged extension, a workspace
 * with a prompt file, the workbench opened in Chromium; the extension logs how long its module
 * evaluation and activate() took (from a stamp at the top of the bundle). Three fresh servers.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium, openWorkbench } from '../test/e2e/browser';
import { CODE_SERVER, startCodeServer } from '../test/e2e/codeServer';
import { fmt, median, table } from './stats';

function findLog(dir: string): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findLog(path);
      if (found) return found;
    } else if (entry.name === 'Prompt Insight.log') return path;
  }
  return undefined;
}

/** require() time of the activation bundle in plain Node, with `vscode` resolved to an inert stand-in. */
function measureBundleLoading(): number {
  const script = `
    const Module = require('module');
    const resolve = Module._resolveFilename;
    const stub = new Proxy(class {}, { get: (t, p) => (p === '__esModule' ? false : stub), apply: () => stub, construct: () => stub });
    require.cache['vscode-stub'] = { id: 'vscode-stub', filename: 'vscode-stub', loaded: true, exports: stub };
    Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? 'vscode-stub' : resolve.call(this, request, ...rest); };
    const t = performance.now();
    require(${JSON.stringify(join(process.cwd(), 'dist', 'extension.js'))});
    process.stdout.write(String(performance.now() - t));`;
  const runs = Array.from({ length: 5 }, () => Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })));
  return median(runs);
}

export async function benchActivation(): Promise<string> {
  if (!existsSync(CODE_SERVER) || !existsSync('prompt-insight.vsix') || !existsSync('/usr/bin/chromium')) {
    return '## Activation\n\nskipped: needs `npm run package` and the e2e tools (`bash test/e2e/install-tools.sh`).';
  }
  const totals: number[] = [];
  const evaluations: number[] = [];
  const activates: number[] = [];
  const browser = await launchChromium();
  try {
    for (let i = 0; i < 3; i++) {
      const server = await startCodeServer({ 'homes.prompty': readFileSync('examples/homes/homes.prompty', 'utf8') });
      try {
        const page = await openWorkbench(browser, server.url);
        const logs = join(server.workspace, '..', 'user-data', 'logs');
        const deadline = Date.now() + 60_000;
        let line: RegExpExecArray | null = null;
        while (!line && Date.now() < deadline) {
          const file = existsSync(logs) ? findLog(logs) : undefined;
          line = file ? /Activated in ([\d.]+) ms \(module evaluation ([\d.]+) ms, activate\(\) ([\d.]+) ms\)/.exec(readFileSync(file, 'utf8')) : null;
          if (!line) await new Promise((r) => setTimeout(r, 250));
        }
        if (!line) throw new Error('the extension did not log its activation');
        totals.push(Number(line[1]));
        evaluations.push(Number(line[2]));
        activates.push(Number(line[3]));
        await page.close();
      } finally {
        await server.stop();
      }
    }
  } finally {
    await browser.close();
  }
  const loading = measureBundleLoading();
  return [
    '## Activation in code-server 1.139 (3 fresh servers, workspaceContains activation)',
    '',
    table(['measurement', 'median', 'max'], [
      ['reading + compiling dist/extension.js (Node, same file, median of 5)', `${fmt(loading)} ms`, ''],
      ['module evaluation (bundle top → bottom)', `${fmt(median(evaluations))} ms`, `${fmt(Math.max(...evaluations))} ms`],
      ['activate() (channels, commands, providers; server starts in the background)', `${fmt(median(activates))} ms`, `${fmt(Math.max(...activates))} ms`],
      ['total (evaluation + activate())', `${fmt(median(totals))} ms`, `${fmt(Math.max(...totals))} ms`],
    ]),
    '',
    'Bar: activation < 50 ms. The language client and the run/compare code are separate bundles loaded on first use.',
  ].join('\n');
}
