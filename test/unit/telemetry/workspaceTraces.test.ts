/**
 * Production sources named by a workspace setting: what the setting accepts, trace paths confined to the
 * workspace (globs, links, .git, FIFOs, '..'), and every file read to a bound (the newest bytes of a plain
 * file, the first decompressed bytes of a gzip one), the cut said.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../../src/core/telemetry/importOtlp';
import { ProdAggregator } from '../../../src/core/telemetry/prodAggregate';
import { boundedTraceOpener, resolveTraceFiles } from '../../../src/core/telemetry/workspaceTraces';
import { readProductionSettings } from '../../../src/core/telemetry/productionSettings';
import { otlpSpan, tracesLine } from '../../fixtures/otlpTraces';

const workspace = () => realpathSync(mkdtempSync(join(tmpdir(), 'pi-ws-traces-')));
const line = (i: number) => tracesLine([otlpSpan({ promptName: 'greet', version: 'v1', startMs: Date.now() - 1000 + i, ttftMs: 100 + i, e2eMs: 2000 })]);

describe('promptInsight.production.sources', () => {
  it('takes trace paths and Prometheus URLs with a window (24h by default); says what it leaves out', () => {
    const { sources, problems } = readProductionSettings({
      sources: [{ traces: 'logs/*.jsonl' }, { prometheus: 'http://127.0.0.1:9090', since: '7d' }, { prometheus: 'file:///etc/passwd' }, { traces: 'a', prometheus: 'http://x' }, { traces: 'a', since: 'yesterday' }, 'x', { traces: '' }],
    });
    expect(sources).toEqual([{ kind: 'traces', traces: 'logs/*.jsonl', since: '24h' }, { kind: 'prometheus', prometheus: 'http://127.0.0.1:9090', since: '7d' }]);
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(/sources\[2\]\.prometheus must be an http/);
    expect(readProductionSettings({ sources: 'logs' }).problems[0]).toMatch(/must be an array/);
    expect(readProductionSettings(undefined)).toEqual({ sources: [], problems: [] });
    expect(readProductionSettings({ sources: Array.from({ length: 20 }, () => ({ traces: 'a' })) }).sources).toHaveLength(8);
  });
});

describe('trace files inside the workspace', () => {
  it('a glob finds regular files inside; links out, FIFOs, .git and node_modules are not read, and are said', async () => {
    const root = workspace();
    mkdirSync(join(root, 'logs/deep'), { recursive: true });
    mkdirSync(join(root, '.git'), { recursive: true });
    mkdirSync(join(root, 'node_modules/x'), { recursive: true });
    writeFileSync(join(root, 'logs/a.jsonl'), `${line(1)}\n`);
    writeFileSync(join(root, 'logs/deep/b.jsonl'), `${line(2)}\n`);
    writeFileSync(join(root, '.git/c.jsonl'), 'secret\n');
    writeFileSync(join(root, 'node_modules/x/d.jsonl'), 'x\n');
    const outside = workspace();
    writeFileSync(join(outside, 'e.jsonl'), `${line(3)}\n`);
    symlinkSync(join(outside, 'e.jsonl'), join(root, 'logs/e.jsonl'));
    symlinkSync(outside, join(root, 'logs/linkdir'));
    execFileSync('mkfifo', [join(root, 'logs/f.jsonl')]);
    const found = await resolveTraceFiles('**/*.jsonl', root);
    expect(found.files).toEqual([join(root, 'logs/a.jsonl'), join(root, 'logs/deep/b.jsonl')]);
    expect(found.problems.join('\n')).toMatch(/logs\/e\.jsonl' leads outside the workspace/);
    expect(found.problems.join('\n')).toMatch(/logs\/f\.jsonl' is a FIFO/);
    expect(found.problems.join('\n')).not.toMatch(/\.git|node_modules|linkdir/);
    expect((await resolveTraceFiles('../x/*.jsonl', root)).problems[0]).toMatch(/climbs out of the workspace/);
    expect((await resolveTraceFiles('/etc/*.conf', root)).problems[0]).toMatch(/outside the workspace/);
    expect((await resolveTraceFiles('.git/c.jsonl', root)).problems[0]).toMatch(/inside a \.git folder/);
    expect((await resolveTraceFiles(join(root, 'logs/a.jsonl'), root)).files).toEqual([join(root, 'logs/a.jsonl')]);
    expect((await resolveTraceFiles('nothing/*.jsonl', root)).problems[0]).toMatch(/^no file matches/);
  });

  it('at most 50 files, the last in name order, and the rest said', async () => {
    const root = workspace();
    mkdirSync(join(root, 'logs'));
    for (let i = 0; i < 60; i++) writeFileSync(join(root, 'logs', `t${String(i).padStart(2, '0')}.jsonl`), `${line(i)}\n`);
    const found = await resolveTraceFiles('logs/*.jsonl', root);
    expect(found.files).toHaveLength(50);
    expect(found.files[0]).toBe(join(root, 'logs/t10.jsonl'));
    expect(found.problems).toEqual(["'logs/*.jsonl' matches 60 files; the last 50 in name order are read."]);
  });
});

describe('bounded reads', () => {
  it('a plain file larger than the bound: its newest bytes, whole lines only, the cut said', async () => {
    const root = workspace();
    const lines = Array.from({ length: 1000 }, (_, i) => line(i));
    writeFileSync(join(root, 'big.jsonl'), `${lines.join('\n')}\n`);
    const bytes = (some: string[]) => some.reduce((n, l) => n + Buffer.byteLength(`${l}\n`), 0);
    const notes: string[] = [];
    const aggregate = new ProdAggregator();
    // Room for the last 100 lines and half of the one before: that half line is dropped, not counted as malformed.
    await readTraceFiles([join(root, 'big.jsonl')], aggregate, { open: boundedTraceOpener(root, bytes(lines.slice(-100)) + Math.floor(bytes([lines[899]!]) / 2), (n) => notes.push(n)) });
    expect([...aggregate.versions.values()][0]!.requests).toBe(100);
    expect(aggregate.skipped.lines).toBe(0);
    // The newest (last) lines: TTFTs 100+900 … 100+999.
    expect([...aggregate.versions.values()][0]!.ttftMs.sorted()[0]).toBeCloseTo(1000, 6);
    expect(notes).toEqual([expect.stringMatching(/^big\.jsonl is [\d.]+ [KM]iB; its last [\d.]+ [KM]iB \(the newest spans\) were read\.$/)]);
  });

  it('a gzip file: its first decompressed bytes up to the last whole line; a small file is read whole', async () => {
    const root = workspace();
    const lines = Array.from({ length: 1000 }, (_, i) => line(i));
    writeFileSync(join(root, 'big.jsonl.gz'), gzipSync(`${lines.join('\n')}\n`));
    const first300 = lines.slice(0, 300).reduce((n, l) => n + Buffer.byteLength(`${l}\n`), 0);
    const notes: string[] = [];
    const aggregate = new ProdAggregator();
    await readTraceFiles([join(root, 'big.jsonl.gz')], aggregate, { open: boundedTraceOpener(root, first300 + 10, (n) => notes.push(n)) });
    expect([...aggregate.versions.values()][0]!.requests).toBe(300);
    expect(aggregate.skipped.lines).toBe(0);
    expect(notes[0]).toMatch(/^big\.jsonl\.gz holds more than [\d.]+ [KM]iB once decompressed; the first [\d.]+ [KM]iB were read\.$/);
    const whole = new ProdAggregator();
    const none: string[] = [];
    await readTraceFiles([join(root, 'big.jsonl.gz')], whole, { open: boundedTraceOpener(root, 256 * 1024 * 1024, (n) => none.push(n)) });
    expect([...whole.versions.values()][0]!.requests).toBe(1000);
    expect(none).toEqual([]);
  });
});
