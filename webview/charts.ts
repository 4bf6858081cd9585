/**
 * The comparison charts (chart.js, bundled), each with a title: adherence with 95% interval whiskers,
 * TTFT and E2E percentiles, tokens per revision, each run over time. Series colours come from
 * chartPalette.ts by the theme's kind (≥ 3:1 on its background); text and grid from the theme.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, ScatterController, Title, Tooltip, type ChartConfiguration, type Plugin } from 'chart.js';
import type { ComparisonView } from '../src/core/compare/view';
import { chartPalette, themeKindOf, type ChartPalette } from './chartPalette';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Title, Tooltip, Legend, ScatterController, LineController, PointElement, LineElement);

function themeColor(name: string, fallback: string): string {
  const value = getComputedStyle(document.body).getPropertyValue(name).trim();
  return value || fallback;
}

/** Text colour: the theme's, or the page's own outside VS Code (the standalone report). */
function foregroundColor(): string {
  return themeColor('--vscode-foreground', getComputedStyle(document.body).color || '#333');
}

/** Draws each bar's 95% interval as a whisker (chart.js has no error bars). */
const intervalWhiskers: Plugin<'bar'> = {
  id: 'intervalWhiskers',
  afterDatasetsDraw(chart) {
    const intervals = (chart.options.plugins as { intervalWhiskers?: { intervals: ([number, number] | null)[] } }).intervalWhiskers?.intervals;
    if (!intervals) return;
    const meta = chart.getDatasetMeta(0);
    const { ctx } = chart;
    const y = chart.scales.y!;
    ctx.save();
    ctx.strokeStyle = foregroundColor();
    ctx.lineWidth = 1.5;
    meta.data.forEach((bar, i) => {
      const ci = intervals[i];
      if (!ci) return;
      const x = bar.x;
      const top = y.getPixelForValue(ci[1] * 100);
      const bottom = y.getPixelForValue(ci[0] * 100);
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, bottom);
      ctx.moveTo(x - 6, top);
      ctx.lineTo(x + 6, top);
      ctx.moveTo(x - 6, bottom);
      ctx.lineTo(x + 6, bottom);
      ctx.stroke();
    });
    ctx.restore();
  },
};

const charts: Chart[] = [];

export function destroyCharts(): void {
  for (const chart of charts.splice(0)) chart.destroy();
}

function baseOptions(title: string, yTitle: string, colours: ChartColours, max?: number): ChartConfiguration<'bar'>['options'] {
  const { foreground, grid } = colours;
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    plugins: { title: { display: true, text: title, color: foreground, font: { weight: 'bold' } }, legend: { labels: { color: foreground } } },
    scales: {
      x: { ticks: { color: foreground, autoSkip: true, maxRotation: 60 }, grid: { color: grid } },
      y: { beginAtZero: true, ...(max !== undefined ? { max } : {}), title: { display: true, text: yTitle, color: foreground }, ticks: { color: foreground }, grid: { color: grid } },
    },
  };
}

/** What a chart is drawn with: the series colours for the theme's kind, and the theme's text and grid colours. */
export interface ChartColours {
  palette: ChartPalette;
  foreground: string;
  grid: string;
}

type Canvases = { adherence: HTMLCanvasElement; ttft: HTMLCanvasElement; e2e: HTMLCanvasElement; tokens: HTMLCanvasElement; timeline?: HTMLCanvasElement };
type ChartName = keyof Canvases;

/** A run in the timeline; `reused` marks a stored run placed by when it was recorded (drawn hollow). */
type TimelineRun = NonNullable<ComparisonView['timeline']>['runs'][number] & { reused?: boolean };

/** Every chart's configuration for a comparison (no DOM here: the unit tests read them). */
export function chartConfigurations(view: ComparisonView, colours: ChartColours): Partial<Record<ChartName, ChartConfiguration>> {
  const labels = view.revisions.map((r) => r.label);
  const { palette } = colours;
  const adherenceOptions = baseOptions('Adherence: share of runs that pass their test case', 'adherence %', colours, 100)!;
  (adherenceOptions.plugins as Record<string, unknown>).intervalWhiskers = { intervals: view.revisions.map((r) => r.adherence.ci95) };
  const configs: Partial<Record<ChartName, ChartConfiguration>> = {
    adherence: {
      type: 'bar',
      // "95% interval": the range the true rate lies in, 19 times out of 20, given this many runs (Wilson score interval).
      data: { labels, datasets: [{ label: 'adherence · whiskers: the range the true rate lies in, 95% sure', data: view.revisions.map((r) => (r.adherence.rate === null ? null : r.adherence.rate * 100)) as number[], backgroundColor: palette.adherence }] },
      options: adherenceOptions,
      plugins: [intervalWhiskers],
    } as ChartConfiguration,
  };
  for (const [name, metric, title, yTitle] of [['ttft', 'ttftMs', 'Time to first token per revision', 'TTFT ms'], ['e2e', 'e2eMs', 'End-to-end latency per revision', 'E2E ms']] as const) {
    configs[name] = {
      type: 'bar',
      data: {
        labels,
        datasets: (['p50', 'p90', 'p99'] as const).map((p) => ({ label: p, data: view.revisions.map((r) => r[metric][p]) as number[], backgroundColor: palette[p] })),
      },
      options: baseOptions(title, yTitle, colours),
    } as ChartConfiguration;
  }
  configs.tokens = { type: 'bar', data: { labels, datasets: [{ label: 'prompt tokens', data: view.revisions.map((r) => r.tokens) as number[], backgroundColor: palette.tokens }] }, options: baseOptions('Prompt tokens per revision (with its sample values)', 'tokens', colours) } as ChartConfiguration;
  if (view.timeline) configs.timeline = timelineConfiguration(view, colours);
  return configs;
}

let lastDrawn: { view: ComparisonView; canvases: Canvases } | undefined;
let themeObserver: MutationObserver | undefined;

/**
 * Colours are read from the theme when a chart is made: when VS Code switches theme (it changes
 * the body's class and CSS variables), the charts are drawn again in the new colours.
 */
function redrawOnThemeChange(): void {
  if (themeObserver || typeof MutationObserver === 'undefined') return;
  themeObserver = new MutationObserver(() => {
    if (lastDrawn) drawCharts(lastDrawn.view, lastDrawn.canvases);
  });
  themeObserver.observe(document.body, { attributes: true, attributeFilter: ['class', 'data-vscode-theme-kind', 'style'] });
}

export function drawCharts(view: ComparisonView, canvases: Canvases): void {
  destroyCharts();
  lastDrawn = { view, canvases };
  redrawOnThemeChange();
  document.body.dataset.chartsDrawn = String(Number(document.body.dataset.chartsDrawn ?? '0') + 1);
  const colours: ChartColours = { palette: chartPalette(themeKindOf(document.body.classList)), foreground: foregroundColor(), grid: themeColor('--vscode-editorWidget-border', 'rgba(128,128,128,0.3)') };
  const configs = chartConfigurations(view, colours);
  for (const name of Object.keys(configs) as ChartName[]) {
    const canvas = canvases[name];
    if (canvas) charts.push(new Chart(canvas, configs[name]!));
  }
}

/**
 * Each run's TTFT at the time it started, per revision, and the server's queue on the same clock.
 * The right-hand axis is there only when the server reported its requests (an empty one only took
 * room, and its title was cut to "ests at the server").
 */
function timelineConfiguration(view: ComparisonView, colours: ChartColours): ChartConfiguration {
  const timeline = view.timeline!;
  const { palette, foreground, grid } = colours;
  const runs: TimelineRun[] = timeline.runs;
  const scatter = view.revisions.flatMap((r, i) => {
    const colour = palette.revisions[i % palette.revisions.length]!;
    const points = (reused: boolean) => runs.filter((run) => run.revision === r.rev && run.ttftMs !== null && (run.reused === true) === reused).map((run) => ({ x: run.t / 1000, y: run.ttftMs! }));
    const fresh = points(false);
    const stored = points(true);
    const sets = [];
    // A revision whose every run came from the store still has its entry, saying why it has no dots here.
    if (fresh.length > 0 || stored.length === 0) {
      sets.push({ type: 'scatter' as const, label: fresh.length > 0 || r.runsReused === 0 ? `${r.label} TTFT` : `${r.label} TTFT (${r.runsReused} runs reused from the store: measured earlier)`, data: fresh, backgroundColor: colour, borderColor: colour, pointRadius: 3, yAxisID: 'y' });
    }
    if (stored.length > 0) sets.push({ type: 'scatter' as const, label: `${r.label} TTFT (reused from the store)`, data: stored, backgroundColor: 'transparent', borderColor: colour, borderWidth: 1.5, pointRadius: 3.5, yAxisID: 'y' });
    return sets;
  });
  const server = (['requestsRunning', 'requestsWaiting'] as const)
    .filter((field) => timeline.server.some((m) => m[field] !== null))
    .map((field) => ({
      type: 'line' as const,
      label: `server: requests ${field === 'requestsRunning' ? 'running' : 'waiting'}`,
      data: timeline.server.filter((m) => m[field] !== null).map((m) => ({ x: m.t / 1000, y: m[field]! })),
      borderColor: field === 'requestsRunning' ? palette.serverRunning : palette.serverWaiting,
      backgroundColor: field === 'requestsRunning' ? palette.serverRunning : palette.serverWaiting,
      borderDash: field === 'requestsWaiting' ? [6, 3] : [],
      pointRadius: 0,
      stepped: true,
      yAxisID: 'requests',
    }));
  const options = baseOptions('Each run\'s time to first token over the batch', 'TTFT ms', colours)!;
  options.scales = {
    x: { type: 'linear', title: { display: true, text: 's from the start of the runs', color: foreground }, ticks: { color: foreground }, grid: { color: grid } },
    y: { beginAtZero: true, title: { display: true, text: 'TTFT ms', color: foreground }, ticks: { color: foreground }, grid: { color: grid } },
    ...(server.length > 0 ? { requests: { position: 'right', beginAtZero: true, title: { display: true, text: 'server requests', color: foreground }, ticks: { color: foreground, precision: 0 }, grid: { drawOnChartArea: false } } } : {}),
  } as never;
  return { type: 'scatter', data: { datasets: [...scatter, ...server] as never }, options: options as never };
}
