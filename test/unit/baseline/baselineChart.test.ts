/**
 * The README's chart (docs/images/baseline-band.svg) is what docs/images/make-baseline-chart.ts draws
 * from the baseline tests' own generated series today: a change to the baseline, the anomalies or
 * the series that moves the chart fails here until the chart is drawn again (`npx tsx
 * docs/images/make-baseline-chart.ts`) — the picture cannot drift from the code.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHART_PATH, renderBaselineChart } from '../../../docs/images/make-baseline-chart';

describe('docs/images/baseline-band.svg', () => {
  it('equals what the script draws now, byte for byte', () => {
    expect(readFileSync(CHART_PATH, 'utf8')).toBe(renderBaselineChart());
  });

  it('shows what the worked example says: three anomalous nights after version b7e1c2d, the spike not one', () => {
    const svg = renderBaselineChart();
    expect(svg).toContain('anomalies (3 nights)');
    expect(svg).toMatch(/nights at 1\d{3} ms against a usual [78]\d\d ms — likely cause: version b7e1c2d/);
    expect(svg).toContain('one spike: not an anomaly');
    expect(svg.match(/height="264" fill="#f6c6c6"\/>/g)).toHaveLength(3); // the shaded nights (the legend swatch aside)
  });
});
