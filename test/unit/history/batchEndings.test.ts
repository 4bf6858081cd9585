/**
 * Every way `git cat-file --batch` can end, forced one at a time by a stand-in git on PATH, maps to
 * one outcome per revision. Real git in a partial clone whose lazy fetch is refused either answers
 * "missing" and exits 0, or — when the refused fetch exits before git has written to it — dies of
 * SIGPIPE before answering (exit 141 in a shell, seen on a busy machine). Both must read as the same
 * "could not be read" with git's reason, never as a thrown error.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentsAt } from '../../../src/core/history/fileHistory';

const REV = 'a'.repeat(40);
const FATAL = "fatal: transport 'ext' not allowed";
const REFUSED = `p.prompty at aaaaaaaa could not be read: ${FATAL}`;

let dir: string;
const savedPath = process.env.PATH;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'batch-endings-'));
});
afterAll(() => {
  process.env.PATH = savedPath;
  rmSync(dir, { recursive: true, force: true });
});

/** Reads the given pairs through a `git` that runs `body` (a shell script; its arguments are ignored). */
async function readWith(body: string, wanted = [{ rev: REV, path: 'p.prompty' }]) {
  const bin = mkdtempSync(join(dir, 'bin-'));
  writeFileSync(join(bin, 'git'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, 'git'), 0o755);
  process.env.PATH = `${bin}${delimiter}${savedPath}`;
  try {
    return await contentsAt(dir, wanted);
  } finally {
    process.env.PATH = savedPath;
  }
}

describe('contentsAt: however the batch process ends', () => {
  it('git says why on stderr and answers "missing" (before or after saying it), or dies of SIGPIPE, or exits 128 unread: one outcome', async () => {
    const endings = {
      fatalThenSigpipe: `echo "${FATAL}" >&2\nkill -PIPE $$`,
      fatalThenMissing: `echo "${FATAL}" >&2\nread name\necho "$name missing"\nexit 0`,
      missingThenFatal: `read name\necho "$name missing"\necho "${FATAL}" >&2\nexit 0`,
      fatalThenExitUnread: `echo "${FATAL}" >&2\nexit 128`,
    };
    for (const [ending, body] of Object.entries(endings)) {
      expect(await readWith(body), ending).toEqual([{ ok: false, reason: REFUSED }]);
    }
  });

  it('answers the first pair, then dies: the first is read, the rest unreadable with the reason', async () => {
    const wanted = [
      { rev: REV, path: 'p.prompty' },
      { rev: REV, path: 'q.prompty' },
    ];
    const body = `read name\nprintf '%s blob 8\\nuser:\\nA\\n\\n' "${'b'.repeat(40)}"\necho "${FATAL}" >&2\nkill -PIPE $$`;
    expect(await readWith(body, wanted)).toEqual([
      { ok: true, text: 'user:\nA\n' },
      { ok: false, reason: `q.prompty at aaaaaaaa could not be read: ${FATAL}` },
    ]);
  });

  it('cut off inside the content, or killed without a word: unreadable, saying how git ended', async () => {
    expect(await readWith(`printf '%s blob 100\\nuser:' "${'b'.repeat(40)}"\nexit 0`)).toEqual([{ ok: false, reason: 'p.prompty at aaaaaaaa could not be read: git cat-file ended (exit code 0) before answering.' }]);
    expect(await readWith('kill -KILL $$')).toEqual([{ ok: false, reason: 'p.prompty at aaaaaaaa could not be read: git cat-file was ended by SIGKILL before answering.' }]);
  });

  it('a pair git reports missing without a word is a path that does not exist', async () => {
    expect(await readWith('read name\necho "$name missing"')).toEqual([{ ok: false, reason: 'p.prompty does not exist at aaaaaaaa.' }]);
  });
});
