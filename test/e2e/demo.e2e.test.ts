/**
 * `npm run demo`'s last step (test/e2e/demo.ts) as a user runs it: it prints the URL of VS Code with the
 * workspace in the demo's folder; Ctrl-C (SIGINT) stops code-server and the simulator and removes the
 * folder. Real code-server from the tools folder, the packaged .vsix.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('npm run demo', () => {
  it('Ctrl-C stops it and removes its temporary folder', { timeout: 180_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/e2e/demo.ts'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const url = await new Promise<string>((found, failed) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /VS Code \(code-server, extension installed from prompt-insight\.vsix\): (\S+)/.exec(output);
        if (match) found(match[1]!);
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.on('exit', () => failed(new Error(`the demo ended before printing its URL:\n${output}`)));
    });
    const workspace = decodeURIComponent(new URL(url).searchParams.get('folder')!);
    const folder = dirname(workspace);
    expect(existsSync(workspace)).toBe(true);
    expect(output).toContain(`removes the demo's folder (${folder})`);
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('Stopping…');
    expect(existsSync(folder)).toBe(false);
  });
});
