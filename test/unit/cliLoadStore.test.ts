/**
 * `load` keeps its points beside the run store (runs.jsonl → runs.load.jsonl), keyed by prompt
 * content hash + endpoint like runs, and `export --kind load` gives them back: the exported points
 * equal what `load --json` printed. The real CLI against the simulator, in a temporary workspace.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHistoryMarkdown } from '../../src/core/load/loadHistory';
import { runCli } from '../fixtures/cli';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';

let state: string;
const cli = (args: string[], cwd: string) => runCli(args, cwd, { env: { ...process.env, PROMPT_INSIGHT_STATE_DIR: state } });

let sim: RunningSim;
let dir: string;
beforeAll(async () => {
  sim = await startSim({ slots: 2, ttftBaseMs: 15, prefillMsPerInputToken: 0, decodeMsPerToken: 1, outputTokens: 10, jitterMs: 0, prefixCacheHitRate: 0.3 });
  dir = mkdtempSync(join(tmpdir(), 'pi-load-store-'));
  state = mkdtempSync(join(tmpdir(), 'pi-load-store-state-'));
  writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short.\n');
});
afterAll(async () => sim.close());

const load = ['load', 'ask.prompty', '--requests', '8', '--slo', 'ttftMs.p90<=5000', '--attainment', '0.5'];

describe('load results in the store, and export --kind load', () => {
  it('load → export: the exported points equal the load JSON, keyed by prompt hash + endpoint', async () => {
    const measured = await cli([...load, '--endpoint', sim.url, '--server-metrics', sim.url.replace(/\/v1$/, '/metrics'), '--concurrency', '1,2', '--json'], dir);
    expect(measured.code).toBe(0);
    const points = JSON.parse(measured.stdout).points;
    expect(points).toHaveLength(2);
    expect(JSON.parse(measured.stdout).simulated).toBe(true); // the simulator's answers say so
    expect(existsSync(join(dir, '.prompt-insight/runs.load.jsonl'))).toBe(true);
    expect(existsSync(join(dir, '.prompt-insight/runs.jsonl'))).toBe(false); // the run store is not touched

    const exported = await cli(['export', '--kind', 'load'], dir);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toBe('');
    const { loadPoints } = JSON.parse(exported.stdout);
    expect(loadPoints).toHaveLength(2);
    for (const [i, stored] of loadPoints.entries()) {
      expect(stored.point).toEqual(points[i]); // every figure and every request, as printed
      expect(stored).toMatchObject({ kind: 'load-point', index: i, file: 'ask.prompty', prompt: 'ask', simulated: true, target: 0.5 });
      expect(stored.slo).toContain('ttftMs.p90 ≤ 5000');
      expect(stored.key.promptHash).toMatch(/^[0-9a-f]{64}$/);
      expect(stored.key.endpoint).toBe(`openai ${sim.url}`);
    }
    expect(loadPoints[0].loadId).toBe(loadPoints[1].loadId);
    // The editor's runs view shows them: one row per point, newest first, its figures as printed.
    const table = loadHistoryMarkdown(loadPoints).split('\n').filter((l) => l.startsWith('| 20'));
    expect(table).toHaveLength(2);
    expect(table.map((l) => l.split('|')[5]!.trim())).toEqual(['concurrency 2', 'concurrency 1']);
    for (const [row, point] of [[table[0]!, points[1]], [table[1]!, points[0]]] as const) {
      const cells = row.split('|').map((c) => c.trim());
      expect(cells[2]).toBe(loadPoints[0].loadId.slice(0, 8));
      expect(cells[3]).toBe(`${loadPoints[0].endpointName} (sim)`);
      expect(cells[6]).toBe(`${point.sent} / ${point.failed}`);
      expect(cells[9]).toMatch(new RegExp(`^${Math.round(point.attainment.share * 100)}% \\(\\d+%–\\d+%\\)( ✓| ✗)? vs 50%$`));
      expect(cells[12]).toBe('warm'); // the simulator's prefix counters said so
    }
    expect(loadHistoryMarkdown([])).toBe('');
    expect(loadPoints[0].point.cache.counters).toMatchObject({ source: 'server-counters', warm: true });

    // CSV: one row per point, its headline figures.
    const csv = await cli(['export', '--kind', 'load', '--format', 'csv'], dir);
    expect(csv.code).toBe(0);
    const [header, ...rows] = csv.stdout.trimEnd().split('\r\n');
    expect(rows).toHaveLength(2);
    const columns = header!.split(',');
    for (const [i, row] of rows.entries()) {
      const cell = (name: string) => row.split(',')[columns.indexOf(name)];
      expect(cell('level')).toBe(points[i].label);
      expect(cell('concurrency')).toBe(String(points[i].level.concurrency));
      expect(Number(cell('sent'))).toBe(points[i].sent);
      expect(Number(cell('requestsPerSec'))).toBeCloseTo(points[i].requestsPerSec, 3);
      expect(Number(cell('goodputRequestsPerSec'))).toBeCloseTo(points[i].goodput.requestsPerSec, 3);
      expect(Number(cell('ttftP90Ms'))).toBeCloseTo(points[i].ttftMs.p90, 3);
      expect(Number(cell('prefixCacheHitRate'))).toBeCloseTo(points[i].cache.counters.hitRate, 3);
      expect(cell('warm')).toBe('true');
    }
  });

  it('--store PATH and --no-store like run; a second load appends; foreign and broken lines are not exported', async () => {
    const own = join(dir, 'elsewhere', 'mine.jsonl');
    const first = await cli([...load, '--endpoint', sim.url, '--rate', '20', '--seed', '3', '--store', own], dir);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`Stored 1 load point in ${join(dir, 'elsewhere', 'mine.load.jsonl')}`);
    const none = await cli([...load, '--endpoint', sim.url, '--concurrency', '1', '--store', own, '--no-store'], dir);
    expect(none.code).toBe(2);
    expect((await cli([...load, '--endpoint', sim.url, '--concurrency', '1', '--no-store'], dir)).stderr).not.toContain('Stored');
    expect((await cli([...load, '--endpoint', sim.url, '--concurrency', '2', '--store', own], dir)).code).toBe(0);

    const file = join(dir, 'elsewhere', 'mine.load.jsonl');
    const good = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(good).toHaveLength(2);
    // A copied record (seal stripped: another machine's), and a torn line.
    appendFileSync(file, `${good[0]!.replace(/,"seal":"[0-9a-f]{64}"}$/, '}')}\n{"v":1,"kind":"load-po`);
    const exported = await cli(['export', '--kind', 'load', '--store', own], dir);
    expect(exported.code).toBe(0);
    const { loadPoints } = JSON.parse(exported.stdout);
    expect(loadPoints.map((p: { point: { label: string } }) => p.point.label)).toEqual(['20/s', 'concurrency 2']);
    expect(loadPoints[0].loadId).not.toBe(loadPoints[1].loadId);
    expect(loadPoints[0].point.level).toEqual({ kind: 'rate', ratePerSec: 20, maxConcurrency: null });
    expect(exported.stderr).toMatch(/ignored 1 record\(s\) not written on this machine.*skipped 1 unreadable or invalid line/);
    // The default store is unchanged by --store, and runs export as before.
    expect(JSON.parse((await cli(['export', '--kind', 'load'], dir)).stdout).loadPoints).toHaveLength(2);
    expect((await cli(['export'], dir)).stdout).toBe('[]\n');
  });

  it('bad arguments are usage errors; no load results is an empty export with a note', async () => {
    expect((await cli(['export', '--kind', 'points'], dir)).code).toBe(2);
    expect((await cli(['export', '--kind', 'load', '--format', 'otlp-json'], dir)).code).toBe(2);
    const empty = mkdtempSync(join(tmpdir(), 'pi-load-store-empty-'));
    const nothing = await cli(['export', '--kind', 'load'], empty);
    expect(nothing.code).toBe(0);
    expect(JSON.parse(nothing.stdout)).toEqual({ loadPoints: [] });
    expect(nothing.stderr).toMatch(/no load results at .*runs\.load\.jsonl/);
  });
});
