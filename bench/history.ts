/**
 * History bar: a file with 10,000 commits (two renames on the way), built with git fast-import.
 * `fileHistory` (log --follow with paths, parsed) against raw `git log --follow` of the same file,
 * and the contents of 100 revisions in one `git cat-file --batch`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contentsAt, fileHistory } from '../src/core/history/fileHistory';
import { fmt, median, table } from './stats';

const COMMITS = 10_000;

function buildRepo(): string {
  const root = mkdtempSync(join(tmpdir(), 'pi-history-'));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
  const parts: string[] = [];
  let path = 'prompts/homes.prompty';
  for (let i = 1; i <= COMMITS; i++) {
    const message = `revision ${i}`;
    const content = `---\nname: homes\n---\nsystem:\nYou are a real-estate assistant (revision ${i}).\n\nuser:\nFind homes nearby.\n`;
    parts.push(`commit refs/heads/main\nmark :${i}\ncommitter Bench <bench@example.com> ${1700000000 + i * 60} +0000\ndata ${Buffer.byteLength(message)}\n${message}\n`);
    if (i > 1) parts.push(`from :${i - 1}\n`);
    if (i === 3000 || i === 7000) {
      const next = i === 3000 ? 'prompts/real-estate.prompty' : 'real-estate.prompty';
      parts.push(`R ${path} ${next}\n`);
      path = next;
    }
    parts.push(`M 100644 inline ${path}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
    if (i % 10 === 0) parts.push(`M 100644 inline other-${i % 7}.txt\ndata 2\n${i % 9}\n\n`);
  }
  const result = spawnSync('git', ['fast-import', '--quiet'], { cwd: root, input: parts.join(''), maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(`fast-import failed: ${result.stderr}`);
  execFileSync('git', ['checkout', '-q', 'main'], { cwd: root });
  return root;
}

function time<T>(fn: () => T): [number, T] {
  const start = performance.now();
  const value = fn();
  return [performance.now() - start, value];
}

async function timeAsync<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
}

export async function benchHistory(): Promise<string> {
  const root = buildRepo();
  const file = join(root, 'real-estate.prompty');
  const raw: number[] = [];
  const ours: number[] = [];
  const batch: number[] = [];
  let revisions = 0;
  for (let i = 0; i < 5; i++) {
    raw.push(time(() => execFileSync('git', ['log', '--follow', '--format=%H', '--', 'real-estate.prompty'], { cwd: root, maxBuffer: 1 << 28 }))[0]);
    const [ms, history] = await timeAsync(() => fileHistory(file));
    ours.push(ms);
    revisions = history.revisions.length;
    const hundred = history.revisions.filter((_, j) => j % Math.floor(history.revisions.length / 100) === 0).slice(0, 100);
    const [contentMs, contents] = await timeAsync(() => contentsAt(history.repoRoot, hundred));
    if (contents.some((c) => !c.ok)) throw new Error('a revision could not be read');
    batch.push(contentMs);
  }
  return [
    `## Git history (${COMMITS.toLocaleString('en-US')} commits of one file, two renames; median of 5)`,
    '',
    table(['operation', 'median', 'ratio'], [
      ['raw `git log --follow --format=%H`', `${fmt(median(raw), 0)} ms`, '1.00×'],
      [`fileHistory (log --follow --name-status, parsed: ${revisions} revisions with paths)`, `${fmt(median(ours), 0)} ms`, `${fmt(median(ours) / median(raw), 2)}×`],
      ['contents of 100 revisions (one cat-file --batch)', `${fmt(median(batch), 1)} ms`, ''],
    ]),
    '',
    'Bars: history ≤ 1.5× raw `git log --follow`; 100 revisions\' contents < 0.5 s.',
  ].join('\n');
}
