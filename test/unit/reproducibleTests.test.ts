/**
 * Tests in CI are reproducible: every fast-check property runs with a fixed seed (fast-check prints
 * it with a failure), and no test draws from Math.random. Open-ended fuzzing is bench/fuzz.ts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');

function testSources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'realworld' && name !== 'node_modules') testSources(full, out);
    } else if (/\.(ts|mts|mjs)$/.test(name) && full !== __filename) out.push(full);
  }
  return out;
}

/** The text of each `fc.assert(…)` call, its parentheses balanced. */
function assertCalls(source: string): string[] {
  const calls: string[] = [];
  for (let at = source.indexOf('fc.assert('); at >= 0; at = source.indexOf('fc.assert(', at + 1)) {
    let depth = 0;
    let end = at + 'fc.assert'.length;
    for (; end < source.length; end++) {
      if (source[end] === '(') depth++;
      else if (source[end] === ')' && --depth === 0) break;
    }
    calls.push(source.slice(at, end + 1));
  }
  return calls;
}

describe('reproducible tests', () => {
  const files = testSources(join(ROOT, 'test'));

  it('every property test passes a seed to fast-check', () => {
    const unseeded: string[] = [];
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      for (const call of assertCalls(source)) {
        if (!/\bseed\b|\bseeded\(/.test(call)) unseeded.push(`${relative(ROOT, file)}: ${call.slice(0, 80).replace(/\s+/g, ' ')}…`);
      }
    }
    expect(unseeded).toEqual([]);
  });

  it('no test draws from Math.random', () => {
    const random = files.filter((file) => /Math\.random\(/.test(readFileSync(file, 'utf8'))).map((file) => relative(ROOT, file));
    expect(random).toEqual([]);
  });
});
