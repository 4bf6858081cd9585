/**
 * `compare --capacity`: the capacity search for the base revision's prompt and the head's, side by
 * side, against a simulated server with 2 slots where every prompt token costs prefill time — the
 * head's much longer prompt is slower for real, so fewer concurrent requests meet the TTFT SLO. The
 * batch scenario holds on it when both searches resolved; equal capacities hold nothing; unresolved
 * searches are insufficient evidence. Real git repositories, the CLI as a child process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { TestRepo } from '../fixtures/gitRepo';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd);

const PROMPT = (text: string) => `---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\n${text}user:\nSay something short.\n`;
const TESTS = 'tests:\n  - vars: {}\n    assert:\n      - type: icontains\n        value: simulated\n';
/** ~360 more prompt tokens: ~115 ms more prefill at 0.32 ms a token. */
const PADDING = Array.from({ length: 24 }, (_, i) => `- Background note ${i + 1}: the reader prefers plain words and short sentences.`).join('\n') + '\n\n';

let sim: RunningSim;
beforeAll(async () => {
  // Two slots; TTFT 5 ms + 0.32 ms per prompt token, then ~20 tokens at 4 ms. The short prompt holds a
  // slot ~90 ms (TTFT ~9 ms), the padded one ~205 ms (TTFT ~125 ms). Under ttftMs ≤ 160 the short
  // prompt tolerates a wait of a whole service time and more (4 in flight: TTFT ~100 ms); the padded
  // one tolerates 35 ms of a 205 ms service, so from 3 in flight most of its requests miss. Margins of
  // 35 ms and more keep a busy machine's timer delays from deciding a level.
  sim = await startSim({ slots: 2, ttftBaseMs: 5, prefillMsPerInputToken: 0.32, decodeMsPerToken: 4, outputTokens: 20, jitterMs: 1 });
});
afterAll(async () => sim.close());

function repoWithHead(headPrompt: string): TestRepo {
  const repo = new TestRepo();
  repo.commit('ask', { 'ask.prompty': PROMPT(''), 'ask.tests.yaml': TESTS });
  repo.write('ask.prompty', headPrompt);
  return repo;
}
const args = (extra: string[]) => ['compare', 'ask.prompty', '--base', 'HEAD', '--head', 'working', '--concurrency', '2', '--no-store', '--scenario', 'batch', '--slo', 'ttftMs.p90<=160', '--capacity', '--capacity-limit', '4', '--attainment', '0.8', ...extra];

describe('compare --capacity', () => {
  it("the head's longer prompt lowers max concurrency under SLO from ≥ 4 to 2: side by side, and the batch decision holds on it", async () => {
    const repo = repoWithHead(PROMPT(PADDING));
    const { code, stdout, stderr } = await cli([...args(['--runs', '20', '--capacity-requests', '24', '--json', '--report', 'report.html']), '--endpoint', sim.url], repo.root);
    expect(code, stderr).toBe(0);
    const json = JSON.parse(stdout);
    // The report carries the same side-by-side lines for its Capacity under SLO section.
    expect(readFileSync(join(repo.root, 'report.html'), 'utf8')).toContain('capacity under SLO: base ≥ 4 → head 2 (resolved both)');
    expect(json.capacity).toMatchObject({ slo: ['TTFT ≤ 160 ms'], target: 0.8, requestsPerLevel: 24, limit: 4, cancelled: false });
    expect(json.capacity.base).toMatchObject({ label: expect.stringMatching(/^[0-9a-f]{7}$/), maxConcurrencyMeetingSlo: 4, atLimit: true, resolved: true });
    expect(json.capacity.head).toMatchObject({ label: 'working copy', maxConcurrencyMeetingSlo: 2, atLimit: false, resolved: true });
    // Doubling to the limit for the base; for the head doubling to 4, then bisecting to 3.
    expect(json.capacity.base.levels.map((l: { concurrency: number }) => l.concurrency)).toEqual([1, 2, 4]);
    expect(json.capacity.head.levels.map((l: { concurrency: number; attainment: { resolved: string } }) => [l.concurrency, l.attainment.resolved])).toEqual([[1, 'meets'], [2, 'meets'], [3, 'misses'], [4, 'misses']]);
    // Every level's attainment is its requests meeting the SLO, and failed requests are none here.
    for (const level of [...json.capacity.base.levels, ...json.capacity.head.levels]) {
      expect(level.failed).toBe(0);
      expect(level.attainment.share).toBeCloseTo(level.attainment.met / level.attainment.total, 10);
    }
    expect(json.rollout.decision).toBe('hold');
    expect(json.rollout.reasons[0]).toBe("head's max concurrency under SLO 2 is below base's ≥ 4 (TTFT ≤ 160 ms, ≥ 80% of requests meeting every SLO (--attainment)) — the batch scenario gates on capacity");
    // The text says the same, side by side before the decision (capacityComparisonLines, one wording).
  }, 120_000);

  it("equal capacities hold nothing: the batch decision ships, the capacity shown side by side as not lower (text); each side's levels stored as load points", async () => {
    const repo = repoWithHead(PROMPT('').replace('Say something short.', 'Say something brief.'));
    // With a store this time (args() says --no-store): the searches' levels are kept like load's points.
    const stored = args(['--runs', '50', '--capacity-requests', '24']).filter((a) => a !== '--no-store');
    const { code, stdout, stderr } = await cli([...stored, '--endpoint', sim.url], repo.root);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/capacity of [0-9a-f]{7}: Stored 3 load points in \.prompt-insight\/runs\.load\.jsonl/);
    expect(stderr).toContain('capacity of working copy: Stored 3 load points in .prompt-insight/runs.load.jsonl');
    const { loadPoints } = JSON.parse((await cli(['export', '--kind', 'load'], repo.root)).stdout);
    expect(loadPoints.map((p: { index: number; point: { level: { concurrency: number } } }) => [p.index, p.point.level.concurrency])).toEqual([[0, 1], [1, 2], [2, 4], [0, 1], [1, 2], [2, 4]]);
    // One load id per side, keyed by that side's prompt: base's and head's prompts differ.
    expect(new Set(loadPoints.map((p: { loadId: string }) => p.loadId)).size).toBe(2);
    expect(loadPoints[0].key.promptHash).not.toBe(loadPoints[3].key.promptHash);
    expect(loadPoints[0]).toMatchObject({ file: 'ask.prompty', simulated: true, target: 0.8 });
    expect(loadPoints[0].slo).toContain('ttftMs.p90 ≤ 160'); // the judging policy's SLOs, as load stores them
    expect(loadPoints[0].point.attainment.limits).toEqual(['TTFT ≤ 160 ms']); // what each request was held to
    expect(stdout).toContain('capacity under SLO: base ≥ 4 → head ≥ 4 (resolved both)\n  largest concurrency meeting TTFT ≤ 160 ms, ≥ 80% of requests meeting every SLO (--attainment); 24 requests per level, limit 4\n');
    expect(stdout).toMatch(/\n {2}base [0-9a-f]{7}: 1: 100% ✓, 2: 100% ✓, 4: 100% ✓\n {2}head working copy: 1: 100% ✓, 2: 100% ✓, 4: 100% ✓\nSHIP: working copy/);
    expect(stdout).toContain('  - capacity under SLO: base ≥ 4 → head ≥ 4 (resolved both) — not lower\n');
    expect(stderr).toContain('capacity working copy: concurrency 4, 24 requests…');
  }, 120_000);

  it('an unresolved search is insufficient evidence for the batch decision; other scenarios show capacity without gating; bad flags are usage errors', async () => {
    // The same capacities as above, but 3 requests a level cannot settle any attainment interval.
    const repo = repoWithHead(PROMPT('').replace('Say something short.', 'Say something brief.'));
    const few = JSON.parse((await cli([...args(['--runs', '50', '--capacity-requests', '3', '--json']), '--endpoint', sim.url], repo.root)).stdout);
    expect(few.capacity.base.resolved).toBe(false);
    expect(few.rollout.decision).toBe('insufficient');
    expect(few.rollout.reasons[0]).toMatch(/^capacity under SLO: base .* \(resolved neither\): insufficient evidence — both searches did not resolve/);

    const interactive = await cli([...args(['--runs', '6', '--capacity-requests', '12']).map((a) => (a === 'batch' ? 'interactive' : a)), '--endpoint', sim.url, '--json'], repo.root);
    expect(JSON.parse(interactive.stdout).rollout.reasons.join('\n')).toMatch(/capacity under SLO: base .* — shown, not gating: the interactive scenario does not gate on capacity/);

    expect(await cli(['compare', 'ask.prompty', '--base', 'HEAD', '--head', 'working', '--endpoint', sim.url, '--capacity-limit', '4'], repo.root)).toMatchObject({ code: 2, stderr: expect.stringContaining('--capacity-limit shapes the capacity search: give it with --capacity') });
    expect(await cli(['compare', 'ask.prompty', '--base', 'HEAD', '--head', 'working', '--endpoint', sim.url, '--scenario', 'batch', '--capacity', '--no-store'], repo.root)).toMatchObject({ code: 2, stderr: expect.stringContaining('the batch scenario sets none: give one with --slo') });
  }, 120_000);
});
