/**
 * The Production view: per source, the versions production saw (the text in the editor marked, versions
 * not in git history said), one chart per source — hourly TTFT p50 and p99 per version, requests per
 * hour as bars, the version changes on the time axis, the baseline band of the hourly p99 where history
 * allows — and each version change with the hours before and after it. No HTML strings from data.
 */
import { BarController, BarElement, CategoryScale, Chart, Filler, Legend, LinearScale, LineController, LineElement, PointElement, Title, Tooltip, type ChartConfiguration } from 'chart.js';
import type { ProductionSourceView, ProductionVersionRow, ProductionView } from '../src/core/telemetry/productionView';
import type { WindowFigures } from '../src/core/telemetry/prodTimeline';
import { formatMs } from '../src/core/metrics/format';
import { chartPalette, themeKindOf } from './chartPalette';
import { el } from './dom';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Filler, Title, Tooltip, Legend);

const ms = (v: number | null) => (v === null ? 'n/a' : formatMs(v));
const hourLabel = (t: number) => new Date(t).toISOString().slice(5, 13).replace('T', ' ') + 'h';

/** How the figures before a change were matched to the hours after it (never the hours just before: another time of day). */
const MATCHED: Record<string, string> = { 'same-hours': ' (the same hours, side by side)', 'week-before': ' (the same hours a week earlier)' };

function figures(f: WindowFigures | null): string {
  if (!f) return 'no requests';
  return `${f.requests} req over ${f.hours} h · TTFT p50 ${ms(f.ttftP50Ms)} · p99 ${ms(f.ttftP99Ms)}${f.how === 'median-of-hours' ? ' (medians of hourly figures)' : ''}`;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The adherence cell: the pass rate, and the hallucination rate when a judge read the retrieved passages. */
function adherenceText(v: ProductionVersionRow): string {
  const h = v.hallucination ? ` · hallucination ${pct(v.hallucination.rate)} [${pct(v.hallucination.low)}, ${pct(v.hallucination.high)}]` : '';
  return v.adherence ? `${pct(v.adherence.rate)} [${pct(v.adherence.low)}, ${pct(v.adherence.high)}] · ${v.adherence.passed}/${v.adherence.scored}${h}` : 'n/a';
}

function adherenceTitle(v: ProductionVersionRow): string {
  const h = v.hallucination ? `; ${v.hallucination.hallucinated} of ${v.hallucination.judged} judged answers hallucinate against the passages their trace retrieved` : '';
  return `${v.adherence!.passed} of ${v.adherence!.scored} sampled answers pass (of ${v.adherence!.withAnswer} captured)${h}`;
}

export function renderProduction(target: HTMLElement, view: ProductionView): number {
  const started = performance.now();
  const parts: Node[] = [el('header', {}, [el('h2', { text: `Production of ${view.prompt} — ${view.file}` })])];
  const canvases: [HTMLCanvasElement, ProductionSourceView][] = [];
  for (const source of view.sources) {
    const section = el('section', { className: 'production-source', attrs: { 'aria-label': `production from ${source.label}` } });
    section.append(el('h3', { text: `${source.label} · ${source.range ?? `last ${source.since}`}` }));
    if (source.error) section.append(el('p', { className: 'fail', text: source.error }));
    const table = el('table', { className: 'matrix production-versions', attrs: { 'aria-label': 'versions in production' } });
    table.append(el('thead', {}, [el('tr', {}, ['version', 'revision', 'requests', 'errors', 'TTFT p50', 'TTFT p99', 'E2E p50', 'E2E p99', 'adherence'].map((h) => el('th', { text: h, attrs: { scope: 'col' } })))]));
    table.append(
      el('tbody', {}, source.versions.map((v) => el('tr', { className: v.thisText ? 'this-text' : '' }, [
        el('th', { text: `${v.version}${v.thisText ? ' (this text)' : ''}`, attrs: { scope: 'row' } }),
        el('td', { className: v.inGitHistory ? '' : 'fail', text: v.inGitHistory ? `${v.revision === 'working' ? 'working copy' : (v.revision ?? '').slice(0, 7)}${v.revisionSubject && v.revision !== 'working' ? ` ${v.revisionSubject}` : ''}` : 'not in git history' }),
        el('td', { text: String(v.requests) }),
        el('td', { text: `${(v.errorRate * 100).toFixed(1)}%` }),
        el('td', { text: ms(v.ttftP50Ms) }),
        el('td', { text: ms(v.ttftP99Ms) }),
        el('td', { text: ms(v.e2eP50Ms) }),
        el('td', { text: ms(v.e2eP99Ms) }),
        el('td', { text: adherenceText(v), attrs: v.adherence ? { title: adherenceTitle(v) } : {} }),
      ]))),
    );
    section.append(source.versions.length ? table : el('p', { text: 'No requests of this prompt in the window.' }));
    if (source.timeline && source.timeline.versions.some((v) => v.points.length > 0)) {
      const canvas = el('canvas', { attrs: { role: 'img', 'aria-label': `hourly TTFT p50 and p99 and requests per version from ${source.label}` } });
      section.append(el('figure', { className: 'chart production' }, [el('div', { className: 'chart-box' }, [canvas])]));
      canvases.push([canvas, source]);
    }
    section.append(el('p', { className: 'meta baseline', text: `Baseline band (hourly TTFT p99, all versions): ${source.baseline}` }));
    const changes = source.timeline?.changes ?? [];
    if (changes.length) {
      section.append(el('h4', { text: 'Version changes' }));
      section.append(el('ul', { className: 'changes' }, changes.map((c) => el('li', { text: `${hourLabel(c.t)}: ${c.previous ?? '?'} → ${c.version} · before${MATCHED[c.before?.matched ?? ''] ?? ''}: ${c.before ? figures(c.before) : (c.beforeNote ?? 'no requests')} · after: ${figures(c.after)}` }))));
    }
    if (source.notes.length) section.append(el('ul', { className: 'problems' }, source.notes.map((n) => el('li', { text: n }))));
    parts.push(section);
  }
  target.replaceChildren(...parts);
  drawProductionCharts(canvases);
  return performance.now() - started;
}

export function productionChartConfiguration(source: ProductionSourceView, foreground: string, grid: string, kind = themeKindOf(document.body.classList)): ChartConfiguration {
  const palette = chartPalette(kind);
  const timeline = source.timeline!;
  const hours = [...new Set([...timeline.versions.flatMap((v) => v.points.map((p) => p.t)), ...timeline.band.points.map((p) => p.t)])].sort((a, b) => a - b);
  const changeAt = new Map(timeline.changes.map((c) => [Math.floor(c.t / timeline.hourMs) * timeline.hourMs, c.version]));
  const labels = hours.map((t) => (changeAt.has(t) ? `${hourLabel(t)} ◆ ${changeAt.get(t)}` : hourLabel(t)));
  const at = <P extends { t: number }>(points: readonly P[]) => new Map(points.map((p) => [p.t, p] as const));
  const datasets: object[] = [];
  const band = at(timeline.band.points);
  if (timeline.band.points.some((p) => p.lower !== null)) {
    datasets.push({ type: 'line', label: 'baseline band (p99) low', data: hours.map((t) => band.get(t)?.lower ?? null), borderColor: palette.serverRunning, borderWidth: 1, pointRadius: 0, yAxisID: 'y' });
    datasets.push({ type: 'line', label: 'baseline band (p99)', data: hours.map((t) => band.get(t)?.upper ?? null), borderColor: palette.serverRunning, borderWidth: 1, pointRadius: 0, backgroundColor: 'rgba(128,128,128,0.2)', fill: '-1', yAxisID: 'y' });
  }
  timeline.versions.forEach((v, i) => {
    const colour = palette.revisions[i % palette.revisions.length]!;
    const points = at(v.points);
    datasets.push({ type: 'line', label: `${v.version} TTFT p50`, data: hours.map((t) => points.get(t)?.ttftP50Ms ?? null), borderColor: colour, backgroundColor: colour, pointRadius: 2, spanGaps: false, yAxisID: 'y' });
    datasets.push({ type: 'line', label: `${v.version} TTFT p99`, data: hours.map((t) => points.get(t)?.ttftP99Ms ?? null), borderColor: colour, backgroundColor: colour, borderDash: [6, 3], pointRadius: 2, spanGaps: false, yAxisID: 'y' });
    datasets.push({ type: 'bar', label: `${v.version} requests`, data: hours.map((t) => points.get(t)?.requests ?? null), backgroundColor: `${colour}55`, yAxisID: 'requests' });
  });
  return {
    type: 'bar',
    data: { labels, datasets: datasets as never },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      plugins: { title: { display: true, text: 'TTFT per hour and version (◆ version change)', color: foreground }, legend: { labels: { color: foreground } } },
      scales: {
        x: { ticks: { color: foreground }, grid: { color: grid } },
        y: { beginAtZero: true, position: 'left', title: { display: true, text: 'TTFT ms', color: foreground }, ticks: { color: foreground }, grid: { color: grid } },
        requests: { beginAtZero: true, position: 'right', title: { display: true, text: 'requests / hour', color: foreground }, ticks: { color: foreground }, grid: { drawOnChartArea: false } },
      } as never,
    },
  };
}

function drawProductionCharts(canvases: [HTMLCanvasElement, ProductionSourceView][]): void {
  const style = getComputedStyle(document.body);
  const foreground = style.getPropertyValue('--vscode-foreground').trim() || style.color || '#333';
  const grid = style.getPropertyValue('--vscode-panel-border').trim() || 'rgba(128,128,128,0.3)';
  for (const [canvas, source] of canvases) new Chart(canvas, productionChartConfiguration(source, foreground, grid));
  document.body.dataset.chartsDrawn = String(Number(document.body.dataset.chartsDrawn ?? '0') + canvases.length);
}
