/**
 * What people read for a metric and an SLO: plain names and round limits, never the internal keys
 * (`e2eMs.p90 ≤ 30000`), while the machine form stays what the JSON and `--slo` carry.
 */
import { describe, expect, it } from 'vitest';
import { formatLimitMs, latencyLimitLabel, METRIC_EXPLANATIONS, metricName, percentText } from '../../../src/core/text/metricNames';
import { objectiveFromText, objectiveLabel, objectiveLabelFromText, objectiveText } from '../../../src/core/rollout/slo';

describe('metric display names', () => {
  it('name each figure in words, and a key it does not know de-camelled', () => {
    expect(['ttftMs', 'e2eMs', 'tpotMs', 'outputTokensPerSec', 'adherence', 'errorRate'].map(metricName)).toEqual(['TTFT', 'E2E latency', 'TPOT', 'throughput', 'adherence', 'error rate']);
    expect(`${METRIC_EXPLANATIONS.ttftMs.title} — ${METRIC_EXPLANATIONS.ttftMs.meaning}`).toBe('Time to first token (TTFT) — how long until the answer starts');
  });

  it('write limits as people do: 30 s, 800 ms, 1.5 s; rates as percentages', () => {
    expect([30_000, 800, 1500, 2250, 1, 0.5].map(formatLimitMs)).toEqual(['30 s', '800 ms', '1.5 s', '2.25 s', '1 ms', '0.5 ms']);
    expect([0.5, 0.02, 0.005, 0.955].map(percentText)).toEqual(['50%', '2%', '0.5%', '96%']);
    expect(latencyLimitLabel('ttftMs', 160)).toBe('TTFT ≤ 160 ms');
  });
});

describe('objective labels', () => {
  it('read an objective plainly; the machine form is unchanged', () => {
    const cases: [string, string, string][] = [
      ['e2eMs.p90<=30000', 'E2E latency p90 ≤ 30 s', 'e2eMs.p90 ≤ 30000'],
      ['ttftMs.p99<=800', 'TTFT p99 ≤ 800 ms', 'ttftMs.p99 ≤ 800'],
      ['tpotMs.p50<=40', 'TPOT p50 ≤ 40 ms', 'tpotMs.p50 ≤ 40'],
      ['adherence>=0.5', 'adherence ≥ 50%', 'adherence ≥ 0.5'],
      ['hallucination<=0.02', 'hallucination ≤ 2%', 'hallucination ≤ 0.02'],
    ];
    for (const [cli, label, machine] of cases) {
      const objective = objectiveFromText(cli);
      expect(objectiveLabel(objective)).toBe(label);
      expect(objectiveText(objective)).toBe(machine);
      // The JSON's machine form (and the CLI's) reads back to the same words in the panels.
      expect(objectiveLabelFromText(machine)).toBe(label);
      expect(objectiveLabelFromText(cli)).toBe(label);
    }
  });

  it('text that is not an objective is shown as written, not dropped', () => {
    expect(objectiveLabelFromText('something else')).toBe('something else');
  });
});

describe('verdicts name latency as the display names do', () => {
  it('fixed-n latency verdicts (core/stats, below the names module) use the same words', async () => {
    const { latencyVerdict } = await import('../../../src/core/stats/verdicts');
    const few = { rev: 'a', values: [1, 2] };
    expect(latencyVerdict('ttftMs', few, few).summary).toMatch(/^TTFT: /);
    expect(latencyVerdict('e2eMs', few, few).summary).toMatch(/^E2E latency: /);
  });
});
