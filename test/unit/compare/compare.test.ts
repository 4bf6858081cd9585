/** The comparison engine on a real git repo and the simulator: buffer/working revisions, cancellation. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestSuite, type TestSuite } from '../../../src/core/adherence/testCases';
import type { GatePolicy } from '../../../src/core/compare/gatePolicy';
import { resolvePolicy } from '../../../src/core/rollout/scenario';
import { compareRevisions } from '../../../src/core/compare/compare';
import { loadRevisionSources } from '../../../src/core/compare/revisionSources';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { parseScenario } from '../../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';
import { HOMES_WITHOUT_RULE, homesRepo } from '../../fixtures/homesRepo';
import { planPromptRun } from '../../../src/core/run/promptRun';
import { ResultsStore } from '../../../src/core/store/resultsStore';
import { runKeyOf } from '../../../src/core/store/runKey';

let sim: RunningSim;
beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 20, decodeMsPerToken: 1, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
});
afterAll(async () => sim.close());

function suiteFor(file: string) {
  const text = readFileSync(file, 'utf8');
  const doc = parsePromptFile(file, text);
  return loadTestSuite(file, text, doc.format, doc.prompts[0]!, (p) => readFileSync(p, 'utf8'));
}

/** The default policy with these test cases (the gate's own resolution is tested in gatePolicy.test.ts). */
function gateOf(suite: TestSuite): GatePolicy {
  return { policy: resolvePolicy({}), suite, retrieval: {}, origin: 'base', changes: [] };
}

describe('compareRevisions', () => {
  it('compares the unsaved buffer with the working copy; labels and diff follow', async () => {
    const { repo } = homesRepo();
    const file = join(repo.root, 'homes.prompty');
    const { sources } = await loadRevisionSources(file, ['buffer', 'working'], { bufferText: HOMES_WITHOUT_RULE });
    expect(sources.map((s) => s.label)).toEqual(['unsaved buffer', 'working copy']);
    const result = await compareRevisions({ file: 'homes.prompty', revisions: sources, gate: gateOf(suiteFor(file)), runsPerCase: 12, transport: httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url }, undefined), fresh: true, timeoutMs: 5000, concurrency: 4 });
    expect(result.revisions.map((r) => r.adherence.total)).toEqual([12, 12]);
    expect(result.revisions[1]!.adherence.rate!).toBeGreaterThan(result.revisions[0]!.adherence.rate!);
    expect(result.diff!.lines!.filter((l) => l.kind === 'added').map((l) => l.text).join('\n')).toContain('single-family');
    expect(result.simulated).toBe(true);
  });

  it('cancelled mid-way: returns what finished, marked cancelled', async () => {
    const { repo, a, b } = homesRepo();
    const file = join(repo.root, 'homes.prompty');
    const { sources } = await loadRevisionSources(file, [a, b]);
    const controller = new AbortController();
    const result = await compareRevisions({
      file: 'homes.prompty', revisions: sources, gate: gateOf(suiteFor(file)), runsPerCase: 40, fresh: true, timeoutMs: 5000, concurrency: 2,
      transport: httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url }, undefined), signal: controller.signal,
      onProgress: (done) => done >= 5 && controller.abort(),
    });
    expect(result.cancelled).toBe(true);
    const total = result.revisions.reduce((s, r) => s + r.adherence.total, 0);
    expect(total).toBeGreaterThanOrEqual(5);
    expect(total).toBeLessThan(80);
  });

  it('reuses stored runs only when fresh and in the same prompt-cache state; says how many and since when', async () => {
    const { repo, a, b } = homesRepo();
    const file = join(repo.root, 'homes.prompty');
    const { sources } = await loadRevisionSources(file, [a, b]);
    const transport = httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url }, undefined);
    const suite = suiteFor(file);
    const store = new ResultsStore(join(mkdtempSync(join(tmpdir(), 'pi-reuse-')), 'runs.jsonl'));
    // Revision A's key, as a comparison computes it: stale cold runs, fresh warm runs, fresh cold runs.
    const plan = await planPromptRun('homes.prompty', sources[0]!.text, { vars: suite.cases[0]!.vars });
    const key = runKeyOf(transport.endpoint, plan.request);
    const now = Date.parse('2026-12-03T12:00:00Z');
    const stored = (cache: 'cold' | 'warm', at: string) => ({
      key, file: 'homes.prompty', prompt: 'homes-assistant', endpointName: 'sim', simulated: true, revision: a, testCase: 0, at, answer: 'Single-family house',
      run: { ok: true, status: 200, error: null, ttftMs: 100, firstAnswerMs: 100, e2eMs: 300, streamEndMs: 301, outputTokens: 10, outputTokensSource: 'usage' as const, inputTokens: 100, inputTokensSource: 'usage' as const, tpotMs: 20, itlMs: [], finishReason: 'stop', streamed: true, retries: 0, cachedInputTokens: cache === 'warm' ? 90 : 0, cache },
    });
    store.append([
      ...Array.from({ length: 4 }, () => stored('cold', '2026-11-29T12:00:00Z')), // 4 days old
      ...Array.from({ length: 4 }, () => stored('warm', '2026-12-03T11:00:00Z')),
      ...Array.from({ length: 3 }, (_, i) => stored('cold', `2026-12-03T10:0${i}:00Z`)),
    ]);
    const compare = (cache: 'cold' | 'warm', freshnessMs?: number) =>
      compareRevisions({ file: 'homes.prompty', revisions: sources, gate: gateOf(suite), runsPerCase: 4, transport, store, fresh: false, timeoutMs: 5000, concurrency: 2, cache, now: () => now, ...(freshnessMs !== undefined ? { freshnessMs } : {}) });
    const cold = await compare('cold');
    expect(cold.revisions[0]).toMatchObject({ runsReused: 3, runsNew: 1, reusedSince: '2026-12-03T10:00:00Z' });
    expect(cold.revisions[1]).toMatchObject({ runsReused: 0, runsNew: 4 });
    expect(cold.timeline!.runs).toHaveLength(5);
    const warm = await compare('warm');
    expect(warm.revisions[0]).toMatchObject({ runsReused: 4, runsNew: 0, reusedSince: '2026-12-03T11:00:00Z' });
    const week = await compare('cold', 7 * 24 * 3_600_000);
    expect(week.revisions[0]!.runsReused).toBe(4); // a week-long window: enough cold runs to reuse them all
  });

  it('a revision that cannot be read is a clear error', async () => {
    const { repo } = homesRepo();
    await expect(loadRevisionSources(join(repo.root, 'homes.prompty'), ['buffer', 'working'])).rejects.toThrow('no unsaved editor buffer');
  });
});
