/**
 * llama.cpp's llama-server with the generated model (install-llama.sh), on 127.0.0.1 and a free
 * port, for the tests that need a real inference engine. One slot, one thread: runs queue, as on a
 * busy single-GPU server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort, waitUntilReady } from '../fixtures/localServers';

const DIR = join(process.env.PROMPT_INSIGHT_TOOLS ?? resolve('.e2e-tools'), 'llama');

export interface LlamaServer {
  url: string;
  /** What was installed (build, package version, model size), for the test's own report. */
  build: string;
  log: () => string;
  stop: () => Promise<void>;
}

export async function startLlamaServer(extraArgs: string[] = []): Promise<LlamaServer> {
  const marker = join(DIR, '.install-complete');
  if (!existsSync(marker)) throw new Error(`llama-server is not installed in ${DIR}: run bash test/engine/install-llama.sh (npm test does)`);
  const lib = join(DIR, 'root/usr/lib/x86_64-linux-gnu');
  const port = await freePort();
  const args = ['--library-path', `${lib}:${lib}/llama`, join(DIR, 'root/usr/bin/llama-server'), '-m', join(DIR, 'model.gguf'), '--host', '127.0.0.1', '--port', String(port), '-t', '1', '-np', '1', '-c', '4096', '-n', '32', '--metrics', ...extraArgs];
  const child: ChildProcess = spawn(join(lib, 'ld-linux-x86-64.so.2'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  child.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady('llama-server', child, async () => (await fetch(`${url}/health`)).ok, () => output);
  return {
    url,
    build: readFileSync(marker, 'utf8').trim(),
    log: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
