/** The built CLI run once under GNU time: its seconds, its peak resident set (MiB) and its JSON output. */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

export function timedCli<T>(args: string[], cwd: string): { seconds: number; rssMiB: number; json: T } {
  const result = spawnSync('/usr/bin/time', ['-f', '%M %e', process.execPath, resolve('dist/cli.js'), ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${args[0]} failed: ${result.stderr}`);
  const [rssKiB, seconds] = result.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { seconds: seconds!, rssMiB: rssKiB! / 1024, json: JSON.parse(result.stdout) as T };
}
