/**
 * The real-world corpus is part of the repository: a clone alone has every file the tests read, each
 * listed in SOURCES.tsv with a redistributable licence kept beside it, and no test or benchmark reaches
 * for a folder beside the repository.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, REALWORLD } from '../fixtures/realworld';

const ROOT = resolve(__dirname, '../..');


describe('real-world corpus in the repository', () => {
  it('lies inside the repository', () => {
    const rel = relative(ROOT, REALWORLD);
    expect(rel.startsWith('..'), `corpus at ${REALWORLD}`).toBe(false);
    expect(existsSync(join(REALWORLD, 'SOURCES.tsv'))).toBe(true);
  });

  it('lists every file in SOURCES.tsv with a licence that allows redistribution', () => {
    const rows = readFileSync(join(REALWORLD, 'SOURCES.tsv'), 'utf8').trim().split('\n').slice(1).map((line) => line.split('\t'));
    expect(rows.length).toBeGreaterThan(300);
    const listed = new Set(['README.md', 'SOURCES.tsv']);
    for (const [repo, path, commit, licence] of rows) {
      expect(commit, `${repo}/${path}`).toMatch(/^[0-9a-f]{40}$/);
      expect(existsSync(join(REALWORLD, repo!, path!)), `${repo}/${path}`).toBe(true);
      const licenceText = readFileSync(join(REALWORLD, repo!, licence!), 'utf8');
      expect(/MIT License|Apache License\s+Version 2\.0/.test(licenceText), `${repo}/${licence}`).toBe(true);
      listed.add(`${repo}/${path}`).add(`${repo}/${licence}`);
    }
    const unlisted = filesUnder(REALWORLD).map((f) => relative(REALWORLD, f)).filter((f) => !listed.has(f));
    expect(unlisted).toEqual([]);
  });

  it('no test or benchmark reads a folder beside the repository', () => {
    const sources = [...filesUnder(join(ROOT, 'test')), ...filesUnder(join(ROOT, 'bench'))].filter((f) => /\.(ts|mts|mjs|js|sh)$/.test(f) && !f.startsWith(REALWORLD) && f !== __filename);
    // A path into the folder beside the repository (`../shared/…`, `shared/realworld`); a test that merely names `../shared` is not one.
    const outside = sources.filter((f) => /(?:\.\.\/)+shared\/[\w.-]|shared\/realworld/.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
    expect(outside).toEqual([]);
  });
});
