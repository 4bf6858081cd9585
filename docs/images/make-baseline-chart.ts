/**
 * The README's worked example as a chart: nine days of the generated hourly TTFT p99 the baseline
 * tests use (test/fixtures/productionSeries.ts) — the dynamic baseline's band and median, the
 * anomalies it finds (the slower nights after version b7e1c2d), the single spike it ignores, and a
 * static threshold that fires at every daily peak. Deterministic: the same series gives the same SVG
 * byte for byte (test/unit/baseline/baselineChart.test.ts holds the committed file to it).
 *
 *   npx tsx docs/images/make-baseline-chart.ts   # writes docs/images/baseline-band.svg
 *
 * The README shows it as media/baseline-band.png (the extension page accepts no SVG), drawn from the SVG by
 *   chromium --headless --hide-scrollbars --force-device-scale-factor=1 --window-size=960,360 \
 *     --screenshot=media/baseline-band.png docs/images/baseline-band.svg
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findAnomalies, judgeWindows } from '../../src/core/baseline/anomalies';
import { DAY, HOUR, SPIKE_AT, STEP_AT, T0, VERSION_CHANGE, workedExample } from '../../test/fixtures/productionSeries';

export const CHART_PATH = fileURLToPath(new URL('./baseline-band.svg', import.meta.url));

const WIDTH = 960;
const HEIGHT = 360;
const PAD = { left: 64, right: 20, top: 44, bottom: 52 };
const Y_MAX = 2600;
const STATIC_THRESHOLD = 1100;
const FROM = T0 + 4 * 7 * DAY + 2 * DAY; // week 5, Wednesday (the spike's day)
const TO = FROM + 9 * DAY; // through week 6, Thursday

const n = (v: number) => String(Math.round(v * 10) / 10);
const x = (t: number) => PAD.left + ((t - FROM) / (TO - FROM)) * (WIDTH - PAD.left - PAD.right);
const y = (ms: number) => PAD.top + (1 - Math.min(ms, Y_MAX) / Y_MAX) * (HEIGHT - PAD.top - PAD.bottom);
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export function renderBaselineChart(): string {
  const series = workedExample();
  const judged = judgeWindows(series).filter((w) => w.t >= FROM && w.t < TO);
  const anomalies = findAnomalies('ttft.p99', series, [{ t: T0, version: 'a1b2c3d' }, VERSION_CHANGE]).filter((a) => a.start >= FROM && a.start < TO);
  const withBand = judged.filter((w) => w.band.upper !== null && w.band.lower !== null && w.band.median !== null);
  const mid = (t: number) => t + HOUR / 2;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`);
  parts.push(`<title>Hourly TTFT p99 against its dynamic baseline: nine days of the worked example</title>`);
  parts.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`);
  // Anomalies first, under everything.
  for (const a of anomalies) {
    const end = a.end ?? TO;
    parts.push(`<rect x="${n(x(a.start))}" y="${PAD.top}" width="${n(x(end) - x(a.start))}" height="${HEIGHT - PAD.top - PAD.bottom}" fill="#f6c6c6"/>`);
  }
  // Grid and axes.
  for (let ms = 0; ms <= Y_MAX; ms += 500) {
    parts.push(`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${n(y(ms))}" y2="${n(y(ms))}" stroke="#e4e4e4"/>`);
    parts.push(`<text x="${PAD.left - 6}" y="${n(y(ms) + 4)}" text-anchor="end" fill="#555">${ms === 0 ? '0' : `${ms / 1000} s`}</text>`);
  }
  for (let t = FROM; t <= TO; t += DAY) {
    parts.push(`<line x1="${n(x(t))}" x2="${n(x(t))}" y1="${PAD.top}" y2="${HEIGHT - PAD.bottom}" stroke="#d0d0d0"/>`);
    if (t < TO) parts.push(`<text x="${n(x(t + DAY / 2))}" y="${HEIGHT - PAD.bottom + 16}" text-anchor="middle" fill="#555">${DAYS[new Date(t).getUTCDay()]} ${new Date(t).toISOString().slice(5, 10)}</text>`);
  }
  // The band and its median.
  const upper = withBand.map((w) => `${n(x(mid(w.t)))},${n(y(w.band.upper!))}`);
  const lower = withBand.map((w) => `${n(x(mid(w.t)))},${n(y(w.band.lower!))}`).reverse();
  parts.push(`<polygon points="${[...upper, ...lower].join(' ')}" fill="#bcd5ee" fill-opacity="0.8"/>`);
  parts.push(`<polyline points="${withBand.map((w) => `${n(x(mid(w.t)))},${n(y(w.band.median!))}`).join(' ')}" fill="none" stroke="#3d6fa8" stroke-dasharray="4 3"/>`);
  // The static threshold.
  parts.push(`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${n(y(STATIC_THRESHOLD))}" y2="${n(y(STATIC_THRESHOLD))}" stroke="#c77800" stroke-dasharray="8 4"/>`);
  // The observed hourly p99.
  parts.push(`<polyline points="${judged.map((w) => `${n(x(mid(w.t)))},${n(y(w.value))}`).join(' ')}" fill="none" stroke="#1a1a1a" stroke-width="1.5"/>`);
  const spike = judged.find((w) => w.t === SPIKE_AT);
  if (spike) {
    parts.push(`<circle cx="${n(x(mid(spike.t)))}" cy="${n(y(spike.value))}" r="4" fill="none" stroke="#1a1a1a"/>`);
    parts.push(`<text x="${n(x(mid(spike.t)) + 8)}" y="${n(y(spike.value) + 4)}" fill="#1a1a1a">one spike: not an anomaly (1 of 4 windows)</text>`);
  }
  parts.push(`<line x1="${n(x(VERSION_CHANGE.t))}" x2="${n(x(VERSION_CHANGE.t))}" y1="${PAD.top - 6}" y2="${HEIGHT - PAD.bottom}" stroke="#7a3db8" stroke-width="1.5"/>`);
  parts.push(`<text x="${n(x(VERSION_CHANGE.t) - 4)}" y="${PAD.top - 10}" text-anchor="end" fill="#7a3db8">version ${VERSION_CHANGE.version} →</text>`);
  const first = anomalies.find((a) => a.start === STEP_AT);
  if (first) parts.push(`<text x="${WIDTH - PAD.right}" y="${n(y(2350))}" text-anchor="end" fill="#a01818">anomalies: nights at ${Math.round(first.observed)} ms against a usual ${Math.round(first.band.median!)} ms — likely cause: version ${first.likelyCause?.version ?? '?'}</text>`);
  // Legend.
  const legend: [string, string][] = [['#1a1a1a', 'TTFT p99 per hour'], ['#bcd5ee', 'baseline band (same hour of the week, median ± 3 MAD)'], ['#c77800', `static threshold ${STATIC_THRESHOLD / 1000} s: fires at every weekday peak`], ['#f6c6c6', `anomalies (${anomalies.length} nights)`]];
  legend.forEach(([color, label], i) => {
    const lx = PAD.left + (i % 2) * 420;
    const ly = HEIGHT - (i < 2 ? 20 : 6);
    parts.push(`<rect x="${lx}" y="${ly - 9}" width="14" height="10" fill="${color}"/>`);
    parts.push(`<text x="${lx + 20}" y="${ly}" fill="#333">${label}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(CHART_PATH, renderBaselineChart());
  console.log(`wrote ${CHART_PATH}`);
}
