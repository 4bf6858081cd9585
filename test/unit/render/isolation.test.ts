/**
 * Defence in depth: a render process made to run arbitrary JavaScript anyway (a test-only process
 * body, test/fixtures/isolation/hostileEngineProcess.ts, started by the real spawnIsolated with the
 * real flags) cannot spawn a child, start a Worker, load an addon, write a file or read one outside
 * its allow list; code that sees only globals finds no route to Node's modules, cannot compile
 * strings, cannot pollute the intrinsics and sees no environment variables. Where the runtime
 * refuses the permission flag, the process still starts, hardened, and says why.
 */
import { chmodSync, existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionFlag, spawnIsolated, type IsolatedProcess } from '../../../src/core/render/isolatedProcess';
import { DIST } from '../../fixtures/cli';

type Reply = { succeeded: boolean; value?: string; code?: string; name?: string; message?: string };

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'pi-isolation-')));
const script = join(dir, 'hostile.js');
const secret = join(dir, 'secret.txt');
const canary = join(dir, 'CANARY-written');
const fakeAddon = join(dir, 'addon.node');
const started: IsolatedProcess[] = [];

beforeAll(async () => {
  await esbuild.build({ entryPoints: ['test/fixtures/isolation/hostileEngineProcess.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: script, banner: { js: '"use strict";' }, logLevel: 'silent' });
  writeFileSync(secret, 'TOP SECRET');
  writeFileSync(fakeAddon, 'not an ELF file');
  process.env.PI_TEST_SECRET_TOKEN = 'sk-test-should-not-cross';
});
afterAll(() => {
  for (const child of started) child.stop();
  delete process.env.PI_TEST_SECRET_TOKEN;
});

/** As the renderer starts its interpreting engines' process (renderer.ts): no code generation. */
function start(allowedNodeFlags?: ReadonlySet<string>, runtime?: string): IsolatedProcess {
  const child = spawnIsolated(script, { heapMb: 64, codeGeneration: false, maxReplyBytes: 1024 * 1024, ...(allowedNodeFlags ? { allowedNodeFlags } : {}), ...(runtime ? { runtime } : {}) });
  started.push(child);
  return child;
}

async function attempt(child: IsolatedProcess, name: string, argument?: string): Promise<Reply> {
  const outcome = await child.call({ attempt: name, argument }, 5000);
  if (!outcome.ok) throw new Error(`the process failed: ${outcome.kind} ${outcome.detail}`);
  return outcome.value as Reply;
}

/** What code that sees only globals gets, under either isolation. */
async function expectGlobalRoutesClosed(child: IsolatedProcess): Promise<void> {
  for (const name of ['global: process.getBuiltinModule', 'global: process.binding', 'global: process.mainModule.require', 'global: fetch']) {
    expect({ name, reply: await attempt(child, name) }).toMatchObject({ name, reply: { succeeded: false, name: 'TypeError' } });
  }
  expect(await attempt(child, 'global: new Function')).toMatchObject({ succeeded: false, name: 'EvalError' });
  expect(await attempt(child, 'global: eval')).toMatchObject({ succeeded: false, name: 'EvalError' });
  // Strict mode: assigning to a frozen intrinsic throws instead of reaching the next render.
  expect(await attempt(child, 'global: pollute Object.prototype')).toMatchObject({ succeeded: false, name: 'TypeError' });
  expect(await attempt(child, 'global: the environment')).toEqual({ succeeded: true, value: '{}' });
}

describe('a render process running hostile code, under the permission model', () => {
  it(`uses ${permissionFlag(process.allowedNodeEnvironmentFlags) ?? 'no'} permission flag on ${process.version}, and reports it`, async () => {
    const child = start();
    const report = await child.ready;
    expect(report).toMatchObject({ mode: 'permission-model', process: { permission: true, codeGeneration: false, routesLeft: [] } });
    expect(report.process.frozen).toBeGreaterThan(100);
  });

  it('the built render processes start under it too: each loads nothing outside its own script (dist/renderHandlebars.js required dist/yaml.js, refused, and ran without it)', async () => {
    for (const [name, codeGeneration] of [['renderHandlebars.js', true], ['renderInterpreted.js', false]] as const) {
      const child = spawnIsolated(join(DIST, name), { heapMb: 256, codeGeneration, maxReplyBytes: 1024 * 1024 });
      started.push(child);
      expect({ name, mode: (await child.ready).mode }).toEqual({ name, mode: 'permission-model' });
    }
  });

  it('holding require: no child process, no Worker, no addon, no inspector, no file write, no read outside the allow list', async () => {
    const child = start();
    const spawned = await attempt(child, 'module: spawn id');
    expect(spawned).toMatchObject({ succeeded: false, code: 'ERR_ACCESS_DENIED' });
    expect(JSON.stringify(spawned)).not.toContain('uid=');
    expect(await attempt(child, 'module: start a Worker')).toMatchObject({ succeeded: false, code: 'ERR_ACCESS_DENIED' });
    expect(await attempt(child, 'module: write a file', canary)).toMatchObject({ succeeded: false, code: 'ERR_ACCESS_DENIED' });
    expect(existsSync(canary)).toBe(false);
    const read = await attempt(child, 'module: read a file outside the allow list', secret);
    expect(read).toMatchObject({ succeeded: false, code: 'ERR_ACCESS_DENIED' });
    expect(JSON.stringify(read)).not.toContain('TOP SECRET');
    expect((await attempt(child, 'module: load a native addon', fakeAddon)).code).toMatch(/^ERR_(ACCESS_DENIED|DLOPEN_DISABLED)$/);
    expect(await attempt(child, 'module: open the inspector')).toMatchObject({ succeeded: false, code: 'ERR_ACCESS_DENIED' });
  });

  it('seeing only globals: no route to Node modules, no code from strings, frozen intrinsics, empty environment', async () => {
    await expectGlobalRoutesClosed(start());
  });
});

describe('where the runtime has no permission model (the fallback)', () => {
  it('no permission flag known (process.allowedNodeEnvironmentFlags lists none): started hardened, and says why', async () => {
    const child = start(new Set());
    const report = await child.ready;
    expect(report).toMatchObject({ mode: 'hardened-process', process: { permission: false, codeGeneration: false, routesLeft: [] } });
    expect(report.withoutPermissionBecause).toMatch(/no permission flag/);
    await expectGlobalRoutesClosed(child);
  });

  it('a runtime that accepts the permission flag but leaves it inert (as Electron utility processes do): reported hardened, not permission-model', async () => {
    // Stands in for such a runtime: Node itself, started without the permission flags it was given.
    const inert = join(dir, 'inert-node.sh');
    writeFileSync(inert, `#!/bin/sh\nfor a in "$@"; do shift; case "$a" in --permission|--experimental-permission|--allow-fs-read=*) ;; *) set -- "$@" "$a";; esac; done\nexec ${JSON.stringify(process.execPath)} "$@"\n`);
    chmodSync(inert, 0o755);
    const child = start(undefined, inert);
    const report = await child.ready;
    expect(report).toMatchObject({ mode: 'hardened-process', process: { permission: false } });
    expect(report.withoutPermissionBecause).toMatch(/accepted --(experimental-)?permission but did not turn the permission model on/);
    await expectGlobalRoutesClosed(child);
  });

  it('a runtime that refuses the flag it lists (exit before "ready"): restarted without it, hardened, and says why', async () => {
    // Node 20 lists --experimental-permission; --permission is a "bad option" there (exit 9). Node 24 is the reverse.
    const refused = process.allowedNodeEnvironmentFlags.has('--permission') ? '--experimental-permission' : '--permission';
    const child = start(new Set([refused]));
    // A request sent at once (as a render is) waits for the restarted process and is answered by it:
    // the refusing process's exit is not its failure.
    const first = attempt(child, 'global: the environment');
    const report = await child.ready;
    expect(report.mode).toBe('hardened-process');
    expect(report.withoutPermissionBecause).toContain(`the runtime refused ${refused}`);
    expect(await first).toEqual({ succeeded: true, value: '{}' });
    await expectGlobalRoutesClosed(child);
  });
});
