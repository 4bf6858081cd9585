import { execFileSync } from 'node:child_process';
import { readlinkSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

// A fresh clone must work on a new machine: no tracked file may be a link that leaves the repository
// (a committed `.e2e-tools -> /tmp/cs` once made every new machine fail).
const repoRoot = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();

function trackedSymlinks(): string[] {
  const listing = execFileSync('git', ['-C', repoRoot, 'ls-files', '-s', '-z'], { encoding: 'utf8' });
  return listing
    .split('\0')
    .filter((entry) => entry.startsWith('120000 '))
    .map((entry) => entry.slice(entry.indexOf('\t') + 1));
}

function pointsInside(root: string, linkPath: string, target: string): boolean {
  if (isAbsolute(target)) return false;
  const resolved = resolve(dirname(linkPath), target);
  const fromRoot = relative(root, resolved);
  return fromRoot !== '' && !fromRoot.startsWith('..') && !isAbsolute(fromRoot);
}

describe('tracked symbolic links', () => {
  it('every tracked link points inside the repository', () => {
    const root = realpathSync(repoRoot);
    const outside = trackedSymlinks().filter((path) => !pointsInside(root, resolve(root, path), readlinkSync(resolve(root, path))));
    expect(outside).toEqual([]);
  });

  it('the check itself tells a link out of the repository from one inside', () => {
    expect(pointsInside('/repo', '/repo/.e2e-tools', '/tmp/cs')).toBe(false);
    expect(pointsInside('/repo', '/repo/a/link', '../../etc/passwd')).toBe(false);
    expect(pointsInside('/repo', '/repo/a/link', '../b/file')).toBe(true);
  });
});
