/**
 * The capacity report (`load --report`): the conclusions, a table per load level, and three charts —
 * throughput and goodput per level, the latency–throughput curve (TTFT p50/p90 against completed
 * requests/s), and SLO attainment per level with its 95% interval and the target. No HTML strings
 * from data; chart colours from the theme palette as in the comparison.
 */
import { targetText } from '../src/core/load/attainment';
import { CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, ScatterController, Title, Tooltip, BarController, BarElement, type ChartConfiguration } from 'chart.js';
import type { CapacityView } from '../src/core/load/capacityView';
import { capacityConclusionLines } from '../src/core/load/conclusions';
import { formatMs } from '../src/core/metrics/format';
import { objectiveLabelFromText } from '../src/core/rollout/slo';
import { chartPalette, themeKindOf } from './chartPalette';
import { el } from './dom';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Title, Tooltip, Legend, ScatterController, LineController, PointElement, LineElement);

const pct = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : `${Math.round(v * 100)}%`);
const ms = (v: number | null) => (v === null ? 'n/a' : formatMs(v));

/** The conclusions in the words `load` prints (one wording, in core). */
export function conclusionLines(view: CapacityView): string[] {
  return capacityConclusionLines(view.capacity);
}

export function renderCapacity(target: HTMLElement, view: CapacityView): number {
  const started = performance.now();
  const header = el('header', {}, [
    el('h2', { text: `Capacity of ${view.prompt} — ${view.file}` }),
    el('p', { className: 'meta', text: `${view.endpoint} · ${view.requestsPerLevel} requests per level · sending ${view.inputs} · scenario ${view.policy.scenario} (${view.policy.scenarioSource}), SLOs ${view.policy.slo.map(objectiveLabelFromText).join(', ') || 'none'} · attainment target ${targetText(view.target)}${view.cancelled ? ' · CANCELLED: partial results' : ''}` }),
  ]);
  if (view.simulated) header.append(el('p', { className: 'simulated', text: 'SIMULATED endpoint: timings are scripted rehearsals, not a real model.' }));
  const conclusions = el('section', { className: 'rollout capacity', attrs: { 'aria-label': 'capacity conclusions' } }, [el('ul', { className: 'reasons' }, conclusionLines(view).map((line) => el('li', { text: line })))]);
  const table = el('table', { className: 'matrix capacity-table', attrs: { 'aria-label': 'figures per load level' } });
  const headings = ['level', 'req/s', 'goodput req/s', 'out tok/s', 'TTFT p50', 'TTFT p90', 'E2E p90', 'attainment (95% CI)', 'failed'];
  table.append(el('thead', {}, [el('tr', {}, headings.map((h) => el('th', { text: h, attrs: { scope: 'col' } })))]));
  table.append(
    el('tbody', {}, view.points.map((p) => el('tr', {}, [
      el('th', { text: p.label, attrs: { scope: 'row' } }),
      el('td', { text: p.requestsPerSec?.toFixed(2) ?? 'n/a' }),
      el('td', { text: p.goodput.requestsPerSec?.toFixed(2) ?? 'n/a' }),
      el('td', { text: p.outputTokensPerSec?.toFixed(1) ?? 'n/a' }),
      el('td', { text: ms(p.ttftMs.p50) }),
      el('td', { text: ms(p.ttftMs.p90) }),
      el('td', { text: ms(p.e2eMs.p90) }),
      el('td', { className: p.attainment.resolved === 'meets' ? 'pass' : p.attainment.resolved === 'misses' ? 'fail' : 'mixed', text: `${pct(p.attainment.share)} (${p.attainment.ci95 ? `${pct(p.attainment.ci95[0])}–${pct(p.attainment.ci95[1])}` : 'n/a'})` }),
      el('td', { text: `${p.failed}/${p.sent}` }),
    ]))),
  );
  const notes = view.points.flatMap((p) => p.notes.map((n) => el('li', { text: `${p.label}: ${n}` })));
  const canvas = (label: string) => el('canvas', { attrs: { role: 'img', 'aria-label': label } });
  const canvases = {
    throughput: canvas('throughput and goodput per load level'),
    curve: canvas('TTFT p50 and p90 against completed requests per second'),
    attainment: canvas('SLO attainment per load level with the target'),
    pareto: canvas('output tokens per second per user against total output tokens per second'),
    ...(hasServerView(view) ? { server: canvas("the server's running and waiting requests and KV-cache use per load level") } : {}),
  };
  const serverGap = hasServerView(view) ? [] : [el('p', { className: 'server-gap', text: "The server's running/waiting/KV-cache lines: the server exported no such metrics during these points (no /metrics gauges), so they are not drawn." })];
  const charts = el('section', { className: 'charts' }, Object.entries(canvases).map(([name, c]) => el('figure', { className: `chart ${name}` }, [el('div', { className: 'chart-box' }, [c])])));
  target.replaceChildren(header, conclusions, charts, ...serverGap, el('h3', { text: 'Per load level' }), table, ...(notes.length > 0 ? [el('h3', { text: 'Notes' }), el('ul', { className: 'problems' }, notes)] : []));
  drawCapacityCharts(view, canvases);
  return performance.now() - started;
}

type CapacityChart = 'throughput' | 'curve' | 'attainment' | 'pareto' | 'server';

/** Any point where the server's own running/waiting/KV gauges were read. */
function hasServerView(view: CapacityView): boolean {
  return view.points.some((p) => p.server !== null && (p.server.requestsRunning !== null || p.server.requestsWaiting !== null || p.server.kvCacheUsage !== null));
}

export function capacityChartConfigurations(view: CapacityView, foreground: string, grid: string, kind = themeKindOf(document.body.classList)): Record<CapacityChart, ChartConfiguration> {
  const palette = chartPalette(kind);
  const labels = view.points.map((p) => p.label);
  const axes = (xTitle: string | undefined, yTitle: string, max?: number) => ({
    x: { ...(xTitle ? { type: 'linear', title: { display: true, text: xTitle, color: foreground } } : {}), ticks: { color: foreground }, grid: { color: grid } },
    y: { beginAtZero: true, ...(max !== undefined ? { max } : {}), title: { display: true, text: yTitle, color: foreground }, ticks: { color: foreground }, grid: { color: grid } },
  });
  const plugins = (title: string) => ({ title: { display: true, text: title, color: foreground, font: { weight: 'bold' as const } }, legend: { labels: { color: foreground } } });
  const curve = view.points.filter((p) => p.requestsPerSec !== null);
  return {
    throughput: {
      type: 'bar',
      data: { labels, datasets: [
        { label: 'completed req/s', data: view.points.map((p) => p.requestsPerSec) as number[], backgroundColor: palette.p50 },
        { label: 'goodput req/s (meeting every SLO)', data: view.points.map((p) => p.goodput.requestsPerSec) as number[], backgroundColor: palette.adherence },
      ] },
      options: { responsive: true, maintainAspectRatio: false, animation: false, plugins: plugins('Throughput and goodput per load level'), scales: axes(undefined, 'requests / s') as never },
    },
    curve: {
      type: 'scatter',
      data: { datasets: (['p50', 'p90'] as const).map((q) => ({ type: 'line' as const, label: `TTFT ${q}`, data: curve.map((p) => ({ x: p.requestsPerSec!, y: p.ttftMs[q] })).filter((d) => d.y !== null) as { x: number; y: number }[], borderColor: palette[q], backgroundColor: palette[q], pointRadius: 4 })) as never },
      options: { responsive: true, maintainAspectRatio: false, animation: false, plugins: plugins('Latency against throughput'), scales: axes('completed requests / s', 'TTFT ms') as never },
    },
    attainment: {
      type: 'bar',
      data: { labels, datasets: [
        { type: 'bar' as const, label: 'attainment %', data: view.points.map((p) => (p.attainment.share === null ? null : p.attainment.share * 100)) as number[], backgroundColor: palette.adherence },
        ...(view.target !== null ? [{ type: 'line' as const, label: `target ${pct(view.target)}`, data: view.points.map(() => view.target! * 100), borderColor: palette.serverWaiting, borderDash: [6, 3], pointRadius: 0 }] : []),
      ] as never },
      options: { responsive: true, maintainAspectRatio: false, animation: false, plugins: plugins('SLO attainment per load level'), scales: axes(undefined, 'requests meeting every SLO %', 100) as never },
    },
    // The Pareto view of serving: each level's total output tok/s against what one user sees (1000 / TPOT p50).
    pareto: {
      type: 'scatter',
      data: { datasets: [{ type: 'line' as const, label: 'load levels', data: view.points.filter((p) => p.outputTokensPerSec !== null && p.tpotMs.p50 !== null && p.tpotMs.p50 > 0).map((p) => ({ x: p.outputTokensPerSec!, y: 1000 / p.tpotMs.p50! })), borderColor: palette.p50, backgroundColor: palette.p50, pointRadius: 4 }] as never },
      options: { responsive: true, maintainAspectRatio: false, animation: false, plugins: plugins('Per-user against total output speed'), scales: axes('total output tokens / s', 'output tokens / s per user') as never },
    },
    server: {
      type: 'line',
      data: { labels, datasets: [
        { label: 'running (mean)', data: view.points.map((p) => p.server?.requestsRunning?.mean ?? null) as number[], borderColor: palette.serverRunning, backgroundColor: palette.serverRunning, yAxisID: 'y' },
        { label: 'waiting (mean)', data: view.points.map((p) => p.server?.requestsWaiting?.mean ?? null) as number[], borderColor: palette.serverWaiting, backgroundColor: palette.serverWaiting, yAxisID: 'y' },
        { label: 'KV cache % (max)', data: view.points.map((p) => (p.server?.kvCacheUsage ? p.server.kvCacheUsage.max * 100 : null)) as number[], borderColor: palette.p90, backgroundColor: palette.p90, borderDash: [4, 2], yAxisID: 'kv' },
      ] },
      options: { responsive: true, maintainAspectRatio: false, animation: false, plugins: plugins("The server's own view per load level"), scales: { ...(axes(undefined, 'requests') as object), kv: { position: 'right', beginAtZero: true, max: 100, title: { display: true, text: 'KV cache %', color: foreground }, ticks: { color: foreground }, grid: { drawOnChartArea: false } } } as never },
    },
  };
}

function drawCapacityCharts(view: CapacityView, canvases: Partial<Record<CapacityChart, HTMLCanvasElement>>): void {
  const style = getComputedStyle(document.body);
  const foreground = style.getPropertyValue('--vscode-foreground').trim() || style.color || '#333';
  const grid = style.getPropertyValue('--vscode-panel-border').trim() || 'rgba(128,128,128,0.3)';
  const configs = capacityChartConfigurations(view, foreground, grid);
  for (const name of Object.keys(canvases) as CapacityChart[]) new Chart(canvases[name]!, configs[name]);
  document.body.dataset.chartsDrawn = String(Number(document.body.dataset.chartsDrawn ?? '0') + 1);
}
