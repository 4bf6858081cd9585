import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runsToCsv } from '../../../src/core/store/export';
import { ResultsStore, type NewRun } from '../../../src/core/store/resultsStore';
import { endpointIdentity, runKeyOf } from '../../../src/core/store/runKey';

function newRun(answer = 'Detached houses only.'): NewRun {
  return {
    key: runKeyOf({ name: 'sim', provider: 'openai', baseUrl: 'http://127.0.0.1:1/v1' }, { model: 'm', messages: [{ role: 'user', content: 'homes' }], params: {} }),
    file: 'homes.prompty',
    prompt: 'homes',
    endpointName: 'sim',
    simulated: true,
    run: { ok: true, status: 200, error: null, ttftMs: 1, firstAnswerMs: 1, e2eMs: 2, streamEndMs: 3, outputTokens: 4, outputTokensSource: 'usage', inputTokens: 5, inputTokensSource: 'usage', tpotMs: 0.3, itlMs: [1], finishReason: 'stop', streamed: true, retries: 0 },
    answer,
  };
}

const tempStore = () => new ResultsStore(join(mkdtempSync(join(tmpdir(), 'pi-store-')), 'nested', 'runs.jsonl'));

describe('ResultsStore', () => {
  it('appends and reads back every record', () => {
    const store = tempStore();
    store.append([newRun('a'), newRun('b')]);
    store.append([newRun('c')]);
    const { records, skippedLines } = store.read();
    expect(records.map((r) => r.answer)).toEqual(['a', 'b', 'c']);
    expect(skippedLines).toBe(0);
    expect(new Set(records.map((r) => r.id)).size).toBe(3);
  });

  it('a superseded run reads once, as its newest version, in its first place; a forged newer version is not used', () => {
    const store = tempStore();
    const [a, b] = store.append([newRun('a'), newRun('b')]);
    store.supersede({ ...a!, run: { ...a!.run, grounded: { hallucinated: false, supported: 2, contradicted: 0, notMentioned: 0 } } });
    expect(readFileSync(store.path, 'utf8').trim().split('\n')).toHaveLength(3);
    const { records } = store.read();
    expect(records.map((r) => [r.id, r.answer, r.run.grounded?.supported])).toEqual([[a!.id, 'a', 2], [b!.id, 'b', undefined]]);
    // A line not sealed by this machine with the same id (a copied or forged "verdict") changes nothing.
    appendFileSync(store.path, `${JSON.stringify({ ...b!, run: { ...b!.run, grounded: { hallucinated: true, supported: 0, contradicted: 9, notMentioned: 0 } } })}\n`);
    const after = store.read();
    expect(after.records.find((r) => r.id === b!.id)!.run.grounded).toBeUndefined();
    expect(after.foreignRecords).toBe(1);
  });

  it('skips a torn last line, keeps all earlier records, and the next append is not swallowed', () => {
    const store = tempStore();
    store.append([newRun('a'), newRun('b')]);
    const whole = JSON.stringify({ ...newRun('torn'), v: 1, id: 'x', at: 'y' });
    appendFileSync(store.path, whole.slice(0, whole.length / 2)); // a write cut by a kill
    expect(store.read()).toMatchObject({ skippedLines: 1 });
    expect(store.read().records.map((r) => r.answer)).toEqual(['a', 'b']);
    store.append([newRun('after')]);
    const { records, skippedLines } = store.read();
    expect(records.map((r) => r.answer)).toEqual(['a', 'b', 'after']);
    expect(skippedLines).toBe(1);
  });

  it('survives SIGKILL of a writer mid-stream: every complete record stays readable', async () => {
    const store = tempStore();
    const writer = spawn(process.execPath, ['--import', 'tsx', resolve('test/fixtures/storeWriter.ts'), store.path], { stdio: ['ignore', 'pipe', 'inherit'] });
    // Kill once the writer has reported some appends (a readiness signal, not a sleep).
    await new Promise<void>((done) => writer.stdout.on('data', (d: Buffer) => Number(d.toString().trim().split('\n').pop()) >= 40 && done()));
    writer.kill('SIGKILL');
    await new Promise((r) => writer.on('exit', r));
    const { records, skippedLines } = store.read();
    expect(records.length).toBeGreaterThanOrEqual(40);
    expect(skippedLines).toBeLessThanOrEqual(1);
    records.forEach((r, i) => expect(r.answer.startsWith(`record ${i} `)).toBe(true));
    store.append([newRun('after kill')]);
    expect(store.read().records.at(-1)!.answer).toBe('after kill');
  });

  it('ignores lines that are not records (hand edits, other versions)', () => {
    const store = tempStore();
    store.append([newRun('a')]);
    appendFileSync(store.path, '{"v":99}\nnot json\n[]\n');
    store.append([newRun('b')]);
    expect(store.read()).toMatchObject({ skippedLines: 3 });
  });

  it('keys never carry credentials from the endpoint URL', () => {
    expect(endpointIdentity({ name: 'x', provider: 'openai', baseUrl: 'https://user:secret@api.example.com/v1/?key=sk-123#frag' })).toBe('openai https://api.example.com/v1');
  });

  it('exports CSV with quoting and no formula injection', () => {
    const store = tempStore();
    store.append([newRun('=HYPERLINK("x")'), newRun('line1\nline2, "quoted"')]);
    const csv = runsToCsv(store.read().records);
    const [header, first] = csv.split('\r\n');
    expect(header).toContain('ttftMs');
    expect(first).toContain('homes.prompty');
    writeFileSync(join(tmpdir(), 'pi-export.csv'), csv);
    expect(readFileSync(join(tmpdir(), 'pi-export.csv'), 'utf8').split('\r\n')).toHaveLength(4);
  });
});
