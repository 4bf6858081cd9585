/** Scenarios, SLOs judged with their intervals, and the one rollout decision. */
import { describe, expect, it } from 'vitest';
import { adherenceVerdict, latencyVerdict } from '../../../src/core/stats/verdicts';
import { decideRollout, type RolloutSide } from '../../../src/core/rollout/decision';
import { resolvePolicy } from '../../../src/core/rollout/scenario';
import { objectiveFromText, objectivesFromBlock, SloError } from '../../../src/core/rollout/slo';
import { judgeObjective, runsToSettle } from '../../../src/core/rollout/sloJudgement';
import { quantileInterval } from '../../../src/core/stats/quantileInterval';
import { seededRandom } from '../../../src/core/stats/random';

const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);

describe('distribution-free quantile intervals', () => {
  it('are the textbook order statistics (Conover): median of 100 → x(40), x(61); p90 → x(84), x(96)', () => {
    expect(quantileInterval(range(100), 0.5)).toEqual([40, 61]);
    expect(quantileInterval(range(100), 0.9)).toEqual([84, 96]);
  });
  it('leave a side open when the runs are too few to bound it', () => {
    expect(quantileInterval(range(24), 0.9)).toEqual([18, null]); // 24 runs cannot bound a p90 from above
    expect(quantileInterval(range(5), 0.5)).toEqual([null, null]);
    expect(quantileInterval([], 0.5)).toEqual([null, null]);
  });
  it('cover the true quantile about 95% of the time', () => {
    const random = seededRandom(7);
    let covered = 0;
    const trials = 400;
    for (let t = 0; t < trials; t++) {
      const sample = Array.from({ length: 60 }, () => -Math.log(1 - random()) * 100); // exponential, p90 = 100·ln 10
      const [lo, hi] = quantileInterval(sample, 0.9);
      if (lo !== null && hi !== null && lo <= 100 * Math.LN10 && 100 * Math.LN10 <= hi) covered++;
    }
    expect(covered / trials).toBeGreaterThan(0.92);
    expect(covered / trials).toBeLessThan(0.995);
  });
});

describe('SLOs', () => {
  it('read from a slo: block and from --slo text', () => {
    expect(objectivesFromBlock({ ttftMs: { p90: 1000 }, e2eMs: { p99: 8000 }, tpotMs: { p50: 50 }, adherence: { min: 0.9 } }, 'f')).toEqual([
      { metric: 'ttftMs', percentile: 'p90', maxMs: 1000 },
      { metric: 'e2eMs', percentile: 'p99', maxMs: 8000 },
      { metric: 'tpotMs', percentile: 'p50', maxMs: 50 },
      { metric: 'adherence', min: 0.9 },
    ]);
    expect(objectiveFromText('ttftMs.p90<=1000')).toEqual({ metric: 'ttftMs', percentile: 'p90', maxMs: 1000 });
    expect(objectiveFromText(' adherence >= 0.9 ')).toEqual({ metric: 'adherence', min: 0.9 });
  });
  it.each([
    [() => objectivesFromBlock([1], 'f'), 'must be a map'],
    [() => objectivesFromBlock({ ttftMs: 1000 }, 'f'), 'slo.ttftMs must be a map'],
    [() => objectivesFromBlock({ latency: { p90: 1 } }, 'f'), "unknown metric 'latency'"],
    [() => objectivesFromBlock({ adherence: { min: 90 } }, 'f'), 'rate from 0 to 1'],
    [() => objectiveFromText('ttftMs.p90>=1000'), 'a latency takes a ceiling'],
    [() => objectiveFromText('adherence<=0.9'), 'adherence takes a floor'],
  ])('bad input is a clear error (%#)', (make, message) => {
    expect(make).toThrow(SloError);
    expect(make).toThrow(message);
  });
  it('are judged with their interval: met, broken, or unclear when the runs cannot tell', () => {
    const evidence = (ttft: number[]) => ({ ttftMs: ttft, e2eMs: [], tpotMs: [], adherence: { passed: 45, total: 50 } });
    const slo = { metric: 'ttftMs', percentile: 'p50', maxMs: 500 } as const;
    expect(judgeObjective(slo, evidence(range(30, 100))).status).toBe('met');
    expect(judgeObjective(slo, evidence(range(30, 600))).status).toBe('broken');
    expect(judgeObjective(slo, evidence(range(30, 485))).status).toBe('unclear');
    expect(judgeObjective({ metric: 'ttftMs', percentile: 'p99', maxMs: 10_000 }, evidence(range(30, 100))).status).toBe('unclear'); // 30 runs cannot bound a p99
    expect(judgeObjective({ metric: 'adherence', min: 0.7 }, evidence([])).status).toBe('met'); // 90% of 50, lower bound 78.6%
    expect(judgeObjective({ metric: 'adherence', min: 0.85 }, evidence([])).status).toBe('unclear');
  });
});

describe('the policy', () => {
  it('takes the scenario from --scenario, else the prompt, else its tests file, else the setting, else interactive', () => {
    expect(resolvePolicy({}).scenario).toBe('interactive');
    expect(resolvePolicy({ settingScenario: 'batch' })).toMatchObject({ scenario: 'batch', scenarioSource: 'setting' });
    expect(resolvePolicy({ settingScenario: 'batch', tests: { where: 't.tests.yaml', scenario: 'decision' } })).toMatchObject({ scenario: 'decision', scenarioSource: 't.tests.yaml' });
    expect(resolvePolicy({ tests: { where: 't', scenario: 'decision' }, prompt: { where: 'p.prompty', scenario: 'batch' } })).toMatchObject({ scenario: 'batch', scenarioSource: 'p.prompty' });
    expect(resolvePolicy({ cliScenario: 'interactive', prompt: { where: 'p', scenario: 'batch' } })).toMatchObject({ scenario: 'interactive', scenarioSource: '--scenario' });
    expect(() => resolvePolicy({ prompt: { where: 'p.prompty', scenario: 'chat' } })).toThrow("p.prompty: scenario must be one of interactive, batch, decision (got \"chat\")");
  });
  it('replaces a default SLO of the same metric and percentile, and adds the others', () => {
    const policy = resolvePolicy({ cliScenario: 'decision', prompt: { where: 'p', slo: { e2eMs: { p90: 9000 } } }, cliSlo: ['adherence>=0.95', 'ttftMs.p99<=4000'] });
    expect(policy.objectives).toEqual([
      { metric: 'e2eMs', percentile: 'p90', maxMs: 9000 },
      { metric: 'adherence', min: 0.95 },
      { metric: 'ttftMs', percentile: 'p99', maxMs: 4000 },
    ]);
  });
});

describe('the rollout decision', () => {
  const random = seededRandom(11);
  const latencies = (median: number, n = 40) => Array.from({ length: n }, () => median + (random() - 0.5) * 20);
  const side = (rev: string, passed: number, ttft: number[], tokensPerSec = latencies(50), total = 40): RolloutSide => ({ rev, label: rev, ttftMs: ttft, e2eMs: ttft.map((t) => t + 1000), tpotMs: [], adherence: { passed, total }, tokensPerSec });
  const verdictsOf = (base: RolloutSide, head: RolloutSide) => [
    adherenceVerdict({ rev: base.rev, ...base.adherence }, { rev: head.rev, ...head.adherence }),
    latencyVerdict('ttftMs', { rev: base.rev, values: base.ttftMs }, { rev: head.rev, values: head.ttftMs }),
    latencyVerdict('e2eMs', { rev: base.rev, values: base.e2eMs }, { rev: head.rev, values: head.e2eMs }),
  ];
  const decide = (scenario: 'interactive' | 'batch' | 'decision', base: RolloutSide, head: RolloutSide, cliSlo: string[] = [], extra: { identical?: boolean; cases?: number } = {}) =>
    decideRollout({ policy: resolvePolicy({ cliScenario: scenario, cliSlo }), base, head, verdicts: verdictsOf(base, head), evidence: { sufficient: true, reasons: [] }, ...extra });

  it('the homes fix: adherence 10% → 95% and TTFT +20 ms ships in a decision scenario, holds in an interactive one', () => {
    const base = side('A', 8, latencies(300, 80), latencies(50), 80);
    const head = side('B', 76, latencies(320, 80), latencies(50), 80);
    expect(verdictsOf(base, head)[1]!.verdict).toBe('worse');
    const decision = decide('decision', base, head);
    expect(decision.decision).toBe('ship');
    expect(decision.reasons.join('\n')).toContain('worse, not blocking');
    expect(decision.reasons[0]).toMatch(/^B meets every SLO of the decision scenario \(E2E latency p90 ≤ 30 s, adherence ≥ 80%\)/);
    const interactive = decide('interactive', base, head);
    expect(interactive.decision).toBe('hold');
    expect(interactive.reasons[0]).toMatch(/^TTFT \+\d+ ms .* significantly worse beyond the margin/);
  });

  it('adherence significantly worse holds in every scenario', () => {
    for (const scenario of ['interactive', 'batch', 'decision'] as const) expect(decide(scenario, side('A', 36, latencies(300)), side('B', 10, latencies(300))).decision).toBe('hold');
  });

  it('an SLO the head breaks holds — also when the base broke it too: the change does not fix it', () => {
    const base = side('A', 38, latencies(300));
    const head = side('B', 38, latencies(700));
    const held = decide('decision', base, head, ['ttftMs.p50<=500']);
    expect(held.decision).toBe('hold');
    expect(held.reasons[0]).toMatch(/^B breaks SLO TTFT p50 ≤ 500 ms: \d+ of 40 runs above 500 ms: TTFT p50 ≤ 500 ms is broken with 95% confidence \(p50 \d+ ms\); A: \d+ of 40 runs above 500 ms/);
    const both = decide('decision', side('A', 38, latencies(800)), side('B', 38, latencies(790)), ['ttftMs.p50<=500']);
    expect(both.decision).toBe('hold');
    expect(both.reasons[0]).toMatch(/^both break SLO TTFT p50 ≤ 500 ms — B does not fix it/);
  });

  it('a prompt that fails its test cases on both revisions is held, in every scenario (0/30 is not "ship")', () => {
    for (const scenario of ['interactive', 'batch', 'decision'] as const) {
      const result = decide(scenario, side('A', 0, latencies(300, 30), latencies(50), 30), side('B', 0, latencies(300, 30), latencies(50), 30));
      expect(result.decision, scenario).toBe('hold');
      expect(result.reasons[0], scenario).toMatch(/^both break SLO adherence ≥ [78]0% — B does not fix it \(A: 0 of 30 runs pass: adherence ≥ [78]0% is broken with 95% confidence/);
    }
  });

  it('an SLO not yet established is insufficient evidence, with about how many runs would settle it — never "?"', () => {
    // 0 of 10 runs above 2 s cannot bound a p90 (at most 10% above): 0 of 29 would.
    const base = side('A', 10, latencies(200, 10), latencies(50, 10), 10);
    const head = side('B', 10, latencies(190, 10), latencies(50, 10), 10);
    const result = decide('interactive', base, head, ['adherence>=0.5'], { cases: 2 });
    expect(result.decision).toBe('insufficient');
    const text = result.reasons.join('\n');
    expect(text).not.toContain('?');
    expect(text).toMatch(/SLO TTFT p90 ≤ 2 s not established for B: 0 of 10 runs above 2\.00 s: not yet enough to tell whether TTFT p90 ≤ 2 s holds \(p90 \d+ ms\) — about 29 runs \(15 per test case\) would bound p90 under 2 s/);
    const needed = result.slo.find((s) => s.objective.startsWith('ttftMs'))!.runsNeeded!;
    expect(needed).toEqual({ runs: 29, side: 'met' });
    // The suggestion is the smallest number of such runs that settles it.
    const repeat = (n: number) => Array.from({ length: n }, (_, i) => head.ttftMs[i % head.ttftMs.length]!);
    const judge = (n: number) => judgeObjective({ metric: 'ttftMs', percentile: 'p90', maxMs: 2000 }, { ...head, ttftMs: repeat(n) }).status;
    expect(judge(needed.runs)).toBe('met');
    expect(judge(needed.runs - 1)).toBe('unclear');
  });

  it('one-sided, as the issue reads them: 0 of 30 runs above 30 s holds p90 ≤ 30 s; 30/30 passing holds adherence ≥ 80%; anytime-valid asks a few runs more', () => {
    const e2e = (above: number, n: number) => ({ ttftMs: [], e2eMs: Array.from({ length: n }, (_, i) => (i < above ? 31_000 : 1400)), tpotMs: [], adherence: { passed: 30, total: 30 } });
    const p90 = { metric: 'e2eMs', percentile: 'p90', maxMs: 30_000 } as const;
    expect(judgeObjective(p90, e2e(0, 30))).toMatchObject({ status: 'met', count: { events: 0, trials: 30 }, text: '0 of 30 runs above 30.00 s: E2E latency p90 ≤ 30 s holds with 95% confidence (p90 1.40 s)' });
    expect(judgeObjective(p90, e2e(0, 28)).status).toBe('unclear');
    expect(judgeObjective(p90, e2e(0, 29)).status).toBe('met');
    // Two-sided order statistics needed 36 runs for the same claim; one exceedance in 30 is not enough yet.
    expect(judgeObjective(p90, e2e(1, 30)).status).toBe('unclear');
    expect(judgeObjective({ metric: 'adherence', min: 0.8 }, e2e(0, 30))).toMatchObject({ status: 'met', text: '30 of 30 runs pass: adherence ≥ 80% holds with 95% confidence' });
    expect(judgeObjective(p90, e2e(0, 30), 'anytime').status).toBe('unclear');
    expect(judgeObjective(p90, e2e(0, 40), 'anytime')).toMatchObject({ status: 'met', text: '0 of 40 runs above 30.00 s: E2E latency p90 ≤ 30 s holds with 95% confidence (anytime-valid) (p90 1.40 s)' });
    expect(runsToSettle(p90, e2e(0, 10))).toEqual({ runs: 29, side: 'met' });
    expect(runsToSettle(p90, e2e(0, 10), 'anytime')!.runs).toBeGreaterThan(29);
  });

  it('runsToSettle: adherence 27/30 against a 0.8 floor needs more runs to show it is met; 18/30 to show it is broken', () => {
    const evidence = (passed: number, total: number) => ({ ttftMs: [], e2eMs: [], tpotMs: [], adherence: { passed, total } });
    const met = runsToSettle({ metric: 'adherence', min: 0.8 }, evidence(27, 30))!;
    expect(met.side).toBe('met');
    expect(judgeObjective({ metric: 'adherence', min: 0.8 }, evidence(Math.round(0.9 * met.runs), met.runs)).status).toBe('met');
    const broken = runsToSettle({ metric: 'adherence', min: 0.8 }, evidence(18, 30))!;
    expect(broken.side).toBe('broken');
    expect(broken.runs).toBeGreaterThan(30);
    expect(runsToSettle({ metric: 'adherence', min: 0.8 }, evidence(24, 30))).toBeNull(); // exactly on the floor: more runs would not tell
  });

  it('revisions that send the same requests: no change, whatever the runs say', () => {
    const base = side('A', 38, latencies(300));
    const result = decide('interactive', base, side('B', 30, latencies(900)), [], { identical: true });
    expect(result.decision).toBe('no-change');
    expect(result.reasons[0]).toBe('A and B send the same requests for every test case: there is no prompt change to roll out.');
  });

  it('batch gates on throughput, not on single-request latency', () => {
    const base = side('A', 38, latencies(300), latencies(60));
    const slower = side('B', 38, latencies(300), latencies(40));
    const held = decide('batch', base, slower);
    expect(held.decision).toBe('hold');
    expect(held.reasons[0]).toMatch(/^throughput -\d+\.\d tok\/s .* significantly worse beyond the margin; batch work gates on throughput/);
    expect(decide('interactive', base, slower).decision).toBe('ship');
  });

  it('failed runs count against a latency SLO: a head whose third of runs timed out does not ship on the two thirds that answered fast', () => {
    const base = side('A', 38, latencies(900));
    const head = { ...side('B', 38, latencies(900)), failedRuns: 20 };
    const held = decide('interactive', base, head, ['ttftMs.p90<=2000']);
    expect(held.decision).toBe('hold');
    expect(held.reasons[0]).toMatch(/^B breaks SLO TTFT p90 ≤ 2 s: 20 of 60 runs above 2\.00 s \(20 of them failed\): TTFT p90 ≤ 2 s is broken/);
    expect(decide('interactive', base, side('B', 38, latencies(900)), ['ttftMs.p90<=2000']).decision).toBe('ship');
  });

  it('a gating figure the runs could not compare keeps ship from being said: latency in an interactive scenario, throughput in a batch one', () => {
    const base = side('A', 38, latencies(500));
    const head = side('B', 38, latencies(1800));
    // No latency comparison at all (no paired runs): insufficient, not ship.
    const noLatency = [adherenceVerdict({ rev: 'A', ...base.adherence }, { rev: 'B', ...head.adherence }), { ...latencyVerdict('ttftMs', { rev: 'A', values: [] }, { rev: 'B', values: [] }), base: 'A', head: 'B' }];
    expect(noLatency[1]!.verdict).toBe('insufficient');
    const interactive = decideRollout({ policy: resolvePolicy({ cliScenario: 'interactive' }), base, head, verdicts: noLatency, evidence: { sufficient: true, reasons: [] } });
    expect(interactive.decision).toBe('insufficient');
    expect(interactive.reasons.join('\n')).toMatch(/latency gates the interactive scenario, so it must be compared/);
    // In a decision scenario latency does not gate: the same missing comparison is only reported.
    expect(decideRollout({ policy: resolvePolicy({ cliScenario: 'decision' }), base, head: side('B', 38, latencies(500)), verdicts: noLatency, evidence: { sufficient: true, reasons: [] } }).decision).toBe('ship');
    // Batch: no tokens/s on the runs.
    const batch = decide('batch', side('A', 38, latencies(500), []), side('B', 38, latencies(500), []));
    expect(batch.decision).toBe('insufficient');
    expect(batch.reasons.join('\n')).toMatch(/throughput: not enough runs with output tokens\/s to compare \(0 and 0; 5 each needed\) — throughput gates the batch scenario/);
  });

  it('no evidence is no decision: insufficient, which a gate treats as failure', () => {
    const base = side('A', 2, latencies(300, 3));
    const head = { ...side('B', 3, latencies(300, 3)), adherence: { passed: 3, total: 3 } };
    const result = decideRollout({ policy: resolvePolicy({}), base: { ...base, adherence: { passed: 2, total: 3 } }, head, verdicts: verdictsOf({ ...base, adherence: { passed: 2, total: 3 } }, head), evidence: { sufficient: false, reasons: ['A: 3 of 3 runs succeeded (5 needed)'] } });
    expect(result.decision).toBe('insufficient');
    expect(result.reasons.at(-1)).toBe('A gate fails closed: no decision without evidence.');
  });
});
