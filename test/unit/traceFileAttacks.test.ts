/**
 * Trace files given to `prod`, `watch` and `sample` follow the rules prompt files follow, and trace text
 * is parsed within bounds: a committed link to /dev/zero, a FIFO, a link out of the workspace to a
 * canary trace file, a 14 MiB line of nested arrays, terminal escapes in versions and error types.
 * The built CLI as a child process (killed after a minute if the old code hangs; nothing asserts on time).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';

const PROMPT = '---\nname: homes-assistant\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nFind homes.\n';
const now = Date.now();
const spans = (n: number, ttftMs: number, version = 'a1b2c3d') => Array.from({ length: n }, (_, i) => otlpSpan({ promptName: 'homes-assistant', version, startMs: now - 3_600_000 + i * 1000, ttftMs, e2eMs: ttftMs + 500 }));
const COMMANDS = [
  ['prod', 'homes.prompty', '--traces'],
  ['watch', 'homes.prompty', '--traces'],
  ['sample', 'homes.prompty', '--dry-run', '--traces'],
] as const;

let repo: TestRepo;
beforeAll(() => {
  repo = new TestRepo();
  repo.commit('homes', { 'homes.prompty': PROMPT, 'traces/ok.jsonl': `${tracesLine(spans(5, 300))}\n` });
  const outside = mkdtempSync(join(tmpdir(), 'pi-canary-'));
  // The canary: spans with a TTFT of 9,876 ms that must never be read.
  writeFileSync(join(outside, 'secret.jsonl'), `${tracesLine(spans(50, 9876))}\n`);
  symlinkSync(join(outside, 'secret.jsonl'), join(repo.root, 'traces', 'out.jsonl'));
  symlinkSync('/dev/zero', join(repo.root, 'traces', 'zero.jsonl'));
  execFileSync('mkfifo', [join(repo.root, 'traces', 'pipe.jsonl')]);
  repo.commit('links', {});
});

describe('trace paths follow the workspace-file rules in prod, watch and sample', () => {
  for (const [command, ...args] of COMMANDS) {
    it(`${command}: a committed link to /dev/zero, a FIFO and a link out of the workspace are refused with a clear message`, async () => {
      const zero = await runCli([command, ...args, 'traces/zero.jsonl'], repo.root, { killAfterMs: 60_000 });
      expect(zero.code).toBe(1);
      expect(zero.stderr).toMatch(/traces\/zero\.jsonl'? (leads outside the workspace|is a device)/);
      const fifo = await runCli([command, ...args, 'traces/pipe.jsonl'], repo.root, { killAfterMs: 60_000 });
      expect(fifo.code).toBe(1);
      expect(fifo.stderr).toContain('is a FIFO (named pipe), not a regular file');
      const out = await runCli([command, ...args, 'traces/out.jsonl'], repo.root, { killAfterMs: 60_000 });
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/traces\/out\.jsonl' leads outside the workspace/);
      expect(out.stdout).not.toMatch(/9\.88 s|9876/);
      // The rules refuse only what they must: the regular file inside is read.
      expect((await runCli([command, ...args, 'traces/ok.jsonl'], repo.root)).stderr).not.toMatch(/refused|outside|FIFO/);
    });
  }
});

describe('trace lines are parsed within bounds', () => {
  it('a 14 MiB line of nested arrays is refused as one counted line, in bounded memory; the lines around it count', async () => {
    const nested = `${'['.repeat(7 * 1024 * 1024)}${']'.repeat(7 * 1024 * 1024)}`;
    writeFileSync(join(repo.root, 'nested.jsonl'), `${tracesLine(spans(5, 300))}\n${nested}\n${tracesLine(spans(5, 300))}\n`);
    const { code, stdout, maxRssBytes } = await runCli(['prod', 'homes.prompty', '--traces', 'nested.jsonl', '--json'], repo.root, { measureRss: true, killAfterMs: 120_000 });
    expect(maxRssBytes).toBeLessThan(300 * 1024 * 1024);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.skipped).toMatchObject({ lines: 1, reasons: { 'nested-too-deep': 1 } });
    expect(report.versions[0].requests).toBe(10);
  });

  it('a line of 2 million empty objects is refused as too many values', async () => {
    writeFileSync(join(repo.root, 'wide.jsonl'), `{"resourceSpans":[${'{},'.repeat(2_000_000)}{}]}\n${tracesLine(spans(3, 300))}\n`);
    const { code, stdout } = await runCli(['prod', 'homes.prompty', '--traces', 'wide.jsonl', '--json'], repo.root);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).skipped.reasons).toEqual({ 'too-many-values': 1 });
  });
});

describe('prod and watch never pass a terminal escape through', () => {
  it('versions and error types with OSC 52, clear screen, an 8-bit CSI and a bidi override, in text and JSON', async () => {
    const hostile = 'v2\u001b]52;c;ZXZpbA==\u0007\u001b[2J\u009b31m\u202egnp.exe';
    const lines = [...spans(30, 300, hostile), ...spans(3, 300, 'v1').map((s) => ({ ...s, status: { code: 2 } }))];
    writeFileSync(join(repo.root, 'hostile.jsonl'), `${tracesLine(lines)}\n${tracesLine([otlpSpan({ promptName: 'homes-assistant', version: hostile, startMs: now - 1000, e2eMs: 10, errorType: 'boom\u009b2J' })])}\n`);
    for (const command of ['prod', 'watch']) {
      for (const json of [[], ['--json']]) {
        const { stdout, stderr } = await runCli([command, 'homes.prompty', '--traces', 'hostile.jsonl', ...json], repo.root);
        for (const out of [stdout, stderr]) expect(out, `${command} ${json.join(' ')}`).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        if (command === 'prod' && json.length) expect(JSON.parse(stdout).versions.map((v: { version: string }) => v.version)).toContain(hostile);
      }
    }
  });
});
