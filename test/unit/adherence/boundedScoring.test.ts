/**
 * Scoring cannot hang (issue 20): test files and answers come from places we do not trust. Schema
 * patterns run on RE2, JSON is found in linear time, answers above the cap are not read, and the
 * checks run in a worker thread that is stopped at its deadline while this thread stays free.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchJson } from '../../../src/core/adherence/jsonInText';
import { scoreRun, type ScoreOptions, type ScoredRun } from '../../../src/core/adherence/score';
import type { Assertion, TestCase } from '../../../src/core/adherence/testCases';

const run = (answer: string): ScoredRun => ({ answer, ok: true, ttftMs: 200, e2eMs: 900 });
const caseOf = (...assertions: (Partial<Assertion> & { type: Assertion['type'] })[]): TestCase => ({
  description: 'c',
  vars: {},
  threshold: 1,
  assertions: assertions.map((a) => ({ negate: false, weight: 1, label: a.type, ...a })),
});
/** In this thread (as from source), unless a test passes the worker. */
const inline: ScoreOptions = { workerScript: false };

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe('every assertion is bounded in time', () => {
  it('a JSON-schema pattern with nested quantifiers decides at once (it ran past 15 s on 34 characters)', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
    const answer = JSON.stringify({ name: `${'a'.repeat(33)}!` });
    const { value, ms } = await timed(() => scoreRun(caseOf({ type: 'json-schema', value: schema }), run(answer), undefined, inline));
    expect(value.status).toBe('fail');
    expect(value.results[0]!.reason).toMatch(/does not match the schema: .*pattern/);
    expect(ms).toBeLessThan(1500);
    // patternProperties go through the same engine; a matching value passes.
    const keyed = { type: 'object', patternProperties: { '^(x+)+$': { type: 'number' } } };
    expect((await scoreRun(caseOf({ type: 'json-schema', value: keyed }), run(JSON.stringify({ [`${'x'.repeat(40)}`]: 1 })), undefined, inline)).status).toBe('pass');
    expect((await scoreRun(caseOf({ type: 'json-schema', value: schema }), run('{"name": "aaaa"}'), undefined, inline)).status).toBe('pass');
  });

  it('a schema pattern RE2 cannot run (lookahead) leaves the assertion undecided with the reason, never tried', async () => {
    const schema = { type: 'string', pattern: '^(?=a)(a+)+$' };
    const scored = await scoreRun(caseOf({ type: 'is-json', value: schema }), run('"aaaa"'), undefined, inline);
    expect(scored.results[0]).toMatchObject({ outcome: 'undecided', reason: expect.stringMatching(/cannot run in linear time/) });
    expect(scored.status).toBe('unscored');
  });

  it('contains-json on 200,000 "{" finishes in well under a second (the old search never finished)', async () => {
    const { value, ms } = await timed(() => scoreRun(caseOf({ type: 'contains-json' }), run('{'.repeat(200_000)), undefined, inline));
    expect(value.results[0]).toMatchObject({ outcome: 'fail', reason: 'the answer contains no JSON object or array' });
    expect(ms).toBeLessThan(1000);
    // Nested, unbalanced and string-hidden brackets, then the real object.
    const tricky = `${'['.repeat(50_000)} "{" x${']'.repeat(10)} {"homes": [1, "}"]} done`;
    const found = await timed(() => scoreRun(caseOf({ type: 'contains-json', value: { type: 'object', required: ['homes'] } }), run(tricky), undefined, inline));
    expect(found.value.status).toBe('pass');
    expect(found.ms).toBeLessThan(1000);
  });

  it('is-json and json-schema on hostile answers (deep nesting, long failing spans) stay linear', async () => {
    const answers = ['['.repeat(100_000) + ']'.repeat(100_000), `${'[1,'.repeat(60_000)}x${']'.repeat(60_000)}`, `${'{"a":'.repeat(40_000)}`, `\`\`\`json\n${' \n'.repeat(100_000)}`];
    for (const answer of answers) {
      const { ms } = await timed(() => scoreRun(caseOf({ type: 'is-json' }, { type: 'json-schema', value: { type: 'array' } }, { type: 'contains-json' }), run(answer), undefined, inline));
      expect(ms, `${answer.slice(0, 12)}… (${answer.length} chars)`).toBeLessThan(2000);
    }
  });

  it('an answer above the cap is not read: its content assertions are undecided and say so; timings still count', async () => {
    const huge = `Single-family ${'x'.repeat(600_000)}`;
    const scored = await scoreRun(caseOf({ type: 'icontains', value: 'single-family' }, { type: 'latency', threshold: 5000 }), run(huge), undefined, inline);
    expect(scored.results[0]).toMatchObject({ outcome: 'undecided', reason: 'the answer is 600,014 characters; answers above 500,000 are not scored' });
    expect(scored.results[1]).toMatchObject({ outcome: 'pass', reason: 'E2E 900 ms ≤ 5000 ms' });
    expect(scored).toMatchObject({ status: 'unscored', unscoredReason: expect.stringContaining('answers above 500,000 are not scored') });
  });
});

/** The earlier search (quadratic): the reference the linear one must agree with. */
function quadraticFindJson(text: string): { found: boolean; value?: unknown } {
  for (let start = 0; start < text.length; start++) {
    if (text[start] !== '{' && text[start] !== '[') continue;
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) {
          try {
            return { found: true, value: JSON.parse(text.slice(start, i + 1)) };
          } catch {
            break;
          }
        }
      }
    }
  }
  return { found: false };
}

describe('the linear JSON search finds what the earlier search found', () => {
  it('on random texts of brackets, quotes, escapes and JSON pieces (fixed seed)', () => {
    const piece = fc.constantFrom('{', '}', '[', ']', '"', '\\', ' ', 'x', ':', ',', '1', '"a"', '{"a":1}', '[1,2]', '{}', '[]', 'null');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        const linear = searchJson(text);
        const reference = quadraticFindJson(text);
        expect(linear.found).toBe(reference.found);
        if (linear.found) expect(linear.value).toEqual(reference.value);
      }),
      { seed: 20261204, numRuns: 5000 },
    );
  });
});

describe('the checks run off the calling thread, stopped at a deadline', () => {
  let workerScript: string;
  beforeAll(async () => {
    // The worker as the extension and CLI bundle it (esbuild.mjs entry scoreWorker), built from this source.
    workerScript = join(mkdtempSync(join(tmpdir(), 'pi-score-worker-')), 'scoreWorker.js');
    await build({ entryPoints: ['src/core/adherence/scoreWorker.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: workerScript, logLevel: 'error' });
  });

  it('a schema Ajv is slow on (uniqueItems over 20,000 objects: ~9 s in-thread) is stopped; this thread keeps answering', async () => {
    const answer = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ a: i })));
    const testCase = caseOf({ type: 'json-schema', value: { type: 'array', uniqueItems: true } }, { type: 'icontains', value: '"a"' });
    let last = performance.now();
    let worstGapMs = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      worstGapMs = Math.max(worstGapMs, now - last);
      last = now;
    }, 5);
    const { value, ms } = await timed(() => scoreRun(testCase, run(answer), undefined, { workerScript, deadlineMs: 800 }));
    clearInterval(ticker);
    expect(value.results.map((r) => r.outcome)).toEqual(['undecided', 'undecided']);
    expect(value.results[0]!.reason).toBe('the answer checks did not finish within 800 ms and were stopped');
    expect(value.status).toBe('unscored');
    expect(ms).toBeLessThan(3000);
    expect(worstGapMs).toBeLessThan(200);
    // The next answer gets a fresh worker and is scored normally.
    const next = await scoreRun(caseOf({ type: 'json-schema', value: { type: 'array', uniqueItems: true } }), run('[1, 2, 3]'), undefined, { workerScript, deadlineMs: 800 });
    expect(next).toMatchObject({ status: 'pass', results: [{ outcome: 'pass', reason: 'the answer matches the JSON schema' }] });
  });

  it('the worker gives the same verdicts as the in-thread checks', async () => {
    const testCase = caseOf(
      { type: 'contains', value: 'single-family' },
      { type: 'icontains-any', value: ['apartment', 'condo'], negate: true },
      { type: 'regex', value: '\\$[\\d,]+' },
      { type: 'contains-json', value: { type: 'object', required: ['price'] } },
      { type: 'word-count', value: { max: 50 } },
    );
    const answer = 'Single-family house, $1,150,000 {"price": 1150000}';
    const inWorker = await scoreRun(testCase, run(answer), undefined, { workerScript });
    const inThread = await scoreRun(testCase, run(answer), undefined, inline);
    expect(inWorker).toEqual(inThread);
    expect(inWorker.results.map((r) => r.outcome)).toEqual(['fail', 'pass', 'pass', 'pass', 'pass']);
  });
});
