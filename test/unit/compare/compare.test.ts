/** The comparison engine on a real git repo and the simulator: buffer/working revisions, cancellation. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestSuite } from '../../../src/core/adherence/testCases';
import { compareRevisions } from '../../../src/core/compare/compare';
import { loadRevisionSources } from '../../../src/core/compare/revisionSources';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { parseScenario } from '../../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';
import { HOMES_WITHOUT_RULE, homesRepo } from '../../fixtures/homesRepo';

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

describe('compareRevisions', () => {
  it('compares the unsaved buffer with the working copy; labels and diff follow', async () => {
    const { repo } = homesRepo();
    const file = join(repo.root, 'homes.prompty');
    const { sources } = await loadRevisionSources(file, ['buffer', 'working'], { bufferText: HOMES_WITHOUT_RULE });
    expect(sources.map((s) => s.label)).toEqual(['unsaved buffer', 'working copy']);
    const result = await compareRevisions({ file: 'homes.prompty', revisions: sources, suite: suiteFor(file), runsPerCase: 12, transport: httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url }, undefined), fresh: true, timeoutMs: 5000, concurrency: 4 });
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
      file: 'homes.prompty', revisions: sources, suite: suiteFor(file), runsPerCase: 40, fresh: true, timeoutMs: 5000, concurrency: 2,
      transport: httpTransport({ name: 'sim', provider: 'openai', baseUrl: sim.url }, undefined), signal: controller.signal,
      onProgress: (done) => done >= 5 && controller.abort(),
    });
    expect(result.cancelled).toBe(true);
    const total = result.revisions.reduce((s, r) => s + r.adherence.total, 0);
    expect(total).toBeGreaterThanOrEqual(5);
    expect(total).toBeLessThan(80);
  });

  it('a revision that cannot be read is a clear error', async () => {
    const { repo } = homesRepo();
    await expect(loadRevisionSources(join(repo.root, 'homes.prompty'), ['buffer', 'working'])).rejects.toThrow('no unsaved editor buffer');
  });
});
