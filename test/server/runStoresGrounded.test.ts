/**
 * Issue 25, end to end: `prompt-insight run` (the built CLI) on the homes simulator acting as model
 * and grounded judge stores each run with its hallucination verdict, and the real language server
 * over stdio shows the hallucination rate of those runs in the hover of the file.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoverRequest, type MarkupContent } from 'vscode-languageserver-protocol/node';
import { ResultsStore } from '../../src/core/store/resultsStore';
import { TestRepo } from '../fixtures/gitRepo';
import { startSimProcess, type SimProcess } from '../fixtures/simProcess';
import { LspHarness } from './lspHarness';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd, { maxBuffer: 64 * 1024 * 1024 });

let sim: SimProcess;
let server: LspHarness | undefined;
let dir: string;
beforeAll(async () => {
  sim = await startSimProcess(['--scenario', resolve('examples/homes/homes.sim.yaml'), '--ttft-ms', '5', '--decode-ms-per-token', '0.2']);
  dir = mkdtempSync(join(tmpdir(), 'pi-run-grounded-'));
  for (const f of ['listings.prompty', 'listings.tests.yaml', 'listings.json']) copyFileSync(resolve('examples/homes', f), join(dir, f));
  // The demo's revision that asks to round prices: the simulated assistant then invents one.
  const rounding = readFileSync(join(dir, 'listings.prompty'), 'utf8').replace('quote prices exactly.', 'round prices to sound attractive.');
  writeFileSync(join(dir, 'rounding.prompty'), rounding);
  copyFileSync(join(dir, 'listings.tests.yaml'), join(dir, 'rounding.tests.yaml'));
});
afterAll(async () => {
  await server?.dispose();
  sim?.child.kill('SIGINT');
});

interface Stored {
  file: string;
  run: { ok: boolean; grounded?: { hallucinated: boolean | null; supported: number; contradicted: number; notMentioned: number } };
}
/** The store as every reader sees it: each run once, its newest version (a verdict supersedes the run stored before it). */
const storedRuns = (path: string): Stored[] => new ResultsStore(path).read().records as Stored[];

describe('prompt-insight run with a hallucination assertion', () => {
  it('stores every run with its grounded verdict, and the hover shows the hallucination rate of those runs', async () => {
    const store = join(dir, 'runs.jsonl');
    const judged = ['--endpoint', sim.url, '--judge-endpoint', sim.url, '--judge-model', 'sim', '--store', store];
    const clean = await cli(['run', 'listings.prompty', '--runs', '3', ...judged], dir);
    expect(clean.stderr).toContain('Runs kept in');
    expect(clean.code).toBe(0);
    const rounding = await cli(['run', 'rounding.prompty', '--runs', '4', '--concurrency', '2', ...judged], dir);
    expect(rounding.code).toBe(0);

    const runs = storedRuns(store);
    expect(runs.map((r) => r.file)).toEqual([...Array(3).fill('listings.prompty'), ...Array(4).fill('rounding.prompty')]);
    for (const r of runs.slice(0, 3)) expect(r.run.grounded).toEqual({ hallucinated: false, supported: 1, contradicted: 0, notMentioned: 0 });
    for (const r of runs.slice(3)) expect(r.run.grounded).toEqual({ hallucinated: true, supported: 0, contradicted: 1, notMentioned: 0 });

    // A judge that cannot be reached leaves the check undetermined: the runs are stored, counted undetermined.
    const unreachable = await cli(['run', 'listings.prompty', '--runs', '2', '--endpoint', sim.url, '--judge-endpoint', 'http://127.0.0.1:1/v1', '--judge-model', 'sim', '--store', store], dir);
    expect(unreachable.code).toBe(0);
    expect(storedRuns(store).slice(7).map((r) => r.run.grounded)).toEqual([
      { hallucinated: null, supported: 0, contradicted: 0, notMentioned: 0 },
      { hallucinated: null, supported: 0, contradicted: 0, notMentioned: 0 },
    ]);
    // Without a judge nothing is judged: the runs are stored without a verdict.
    const unjudged = await cli(['run', 'listings.prompty', '--runs', '1', '--endpoint', sim.url, '--store', store], dir);
    expect(unjudged.code).toBe(0);
    const all = storedRuns(store);
    expect(all).toHaveLength(10);
    expect(all[9]!.run.ok).toBe(true);
    expect(all[9]!.run).not.toHaveProperty('grounded');

    server = new LspHarness();
    await server.initialize({ storePath: store, workspaceFolders: [dir] });
    const hoverOf = async (name: string): Promise<string> => {
      const text = readFileSync(join(dir, name), 'utf8');
      const { uri } = await server!.open(join(dir, name), text);
      const line = text.split('\n').findIndex((l) => l.startsWith('You answer questions'));
      const hover = await server!.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line, character: 2 } });
      return (hover!.contents as MarkupContent).value;
    };
    const roundingHover = await hoverOf('rounding.prompty');
    expect(roundingHover).toContain('**Runs of this text**');
    expect(roundingHover).toContain('hallucination 4/4 (100%, 95% CI 51–100%)');
    expect(await hoverOf('listings.prompty')).toContain('hallucination 0/3 (0%, 95% CI 0–56%) · 2 undetermined');
  }, 60_000);

  it('compare stores its fresh runs with their verdicts: the revision that rounds prices hallucinates, the base does not', async () => {
    const files = Object.fromEntries(['listings.prompty', 'listings.tests.yaml', 'listings.json'].map((f) => [f, readFileSync(resolve('examples/homes', f), 'utf8')]));
    const repo = new TestRepo();
    const base = repo.commit('Listings assistant', files);
    const head = repo.commit('Round prices to sound attractive', { 'listings.prompty': files['listings.prompty']!.replace('quote prices exactly.', 'round prices to sound attractive.') });
    const store = join(dir, 'compare.jsonl');
    const { code } = await cli(['compare', 'listings.prompty', '--base', base.slice(0, 8), '--head', 'HEAD', '--runs', '3', '--endpoint', sim.url, '--judge-endpoint', sim.url, '--judge-model', 'sim', '--store', store], repo.root);
    expect(code).toBe(0);
    const runs = storedRuns(store) as (Stored & { revision?: string })[];
    expect(runs).toHaveLength(6);
    const of = (rev: string) => runs.filter((r) => r.revision === rev).map((r) => r.run.grounded);
    expect(of(base)).toEqual(Array(3).fill({ hallucinated: false, supported: 1, contradicted: 0, notMentioned: 0 }));
    expect(of(head)).toEqual(Array(3).fill({ hallucinated: true, supported: 0, contradicted: 1, notMentioned: 0 }));
  }, 60_000);
});
