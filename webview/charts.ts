/**
 * The comparison charts (chart.js, bundled): adherence with 95% interval whiskers, TTFT and E2E
 * percentiles, tokens per revision. Colours come from the VS Code theme's CSS variables.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, ScatterController, Tooltip, type ChartConfiguration, type Plugin } from 'chart.js';
import type { ComparisonView } from '../src/core/compare/view';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend, ScatterController, LineController, PointElement, LineElement);

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

function baseOptions(yTitle: string, max?: number): ChartConfiguration<'bar'>['options'] {
  const foreground = foregroundColor();
  const grid = themeColor('--vscode-editorWidget-border', 'rgba(128,128,128,0.3)');
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    plugins: { legend: { labels: { color: foreground } } },
    scales: {
      x: { ticks: { color: foreground, autoSkip: true, maxRotation: 60 }, grid: { color: grid } },
      y: { beginAtZero: true, ...(max !== undefined ? { max } : {}), title: { display: true, text: yTitle, color: foreground }, ticks: { color: foreground }, grid: { color: grid } },
    },
  };
}

function palette(): string[] {
  return [themeColor('--vscode-charts-blue', '#3794ff'), themeColor('--vscode-charts-orange', '#d18616'), themeColor('--vscode-charts-purple', '#b180d7'), themeColor('--vscode-charts-green', '#89d185')];
}

type Canvases = { adherence: HTMLCanvasElement; ttft: HTMLCanvasElement; e2e: HTMLCanvasElement; tokens: HTMLCanvasElement; timeline?: HTMLCanvasElement };

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
  const labels = view.revisions.map((r) => r.label);
  const [blue, orange, purple, green] = palette();
  const adherenceOptions = baseOptions('adherence %', 100)!;
  (adherenceOptions.plugins as Record<string, unknown>).intervalWhiskers = { intervals: view.revisions.map((r) => r.adherence.ci95) };
  charts.push(
    new Chart(canvases.adherence, {
      type: 'bar',
      data: { labels, datasets: [{ label: 'adherence (95% Wilson interval)', data: view.revisions.map((r) => (r.adherence.rate === null ? null : r.adherence.rate * 100)) as number[], backgroundColor: green }] },
      options: adherenceOptions,
      plugins: [intervalWhiskers],
    }),
  );
  for (const [canvas, metric, title] of [[canvases.ttft, 'ttftMs', 'TTFT ms'], [canvases.e2e, 'e2eMs', 'E2E ms']] as const) {
    charts.push(
      new Chart(canvas, {
        type: 'bar',
        data: {
          labels,
          datasets: (['p50', 'p90', 'p99'] as const).map((p, i) => ({ label: p, data: view.revisions.map((r) => r[metric][p]) as number[], backgroundColor: [blue, orange, purple][i] })),
        },
        options: baseOptions(title),
      }),
    );
  }
  charts.push(new Chart(canvases.tokens, { type: 'bar', data: { labels, datasets: [{ label: 'prompt tokens', data: view.revisions.map((r) => r.tokens) as number[], backgroundColor: blue }] }, options: baseOptions('tokens') }));
  if (canvases.timeline && view.timeline) drawTimeline(view, canvases.timeline);
}

/** Each fresh run's TTFT at the time it started, per revision, and the server's queue on the same clock. */
function drawTimeline(view: ComparisonView, canvas: HTMLCanvasElement): void {
  const timeline = view.timeline!;
  const colours = palette();
  const options = baseOptions('TTFT ms')!;
  const foreground = foregroundColor();
  options.scales = {
    x: { type: 'linear', title: { display: true, text: 's from the start of the runs', color: foreground }, ticks: { color: foreground } },
    y: { beginAtZero: true, title: { display: true, text: 'TTFT ms', color: foreground }, ticks: { color: foreground } },
    requests: { position: 'right', beginAtZero: true, title: { display: true, text: 'requests at the server', color: foreground }, ticks: { color: foreground, precision: 0 }, grid: { drawOnChartArea: false } },
  };
  const runs = view.revisions.map((r, i) => ({
    type: 'scatter' as const,
    label: `${r.label} TTFT`,
    data: timeline.runs.filter((run) => run.revision === r.rev && run.ttftMs !== null).map((run) => ({ x: run.t / 1000, y: run.ttftMs! })),
    backgroundColor: colours[i % colours.length],
    yAxisID: 'y',
  }));
  const server = (['requestsRunning', 'requestsWaiting'] as const)
    .filter((field) => timeline.server.some((m) => m[field] !== null))
    .map((field, i) => ({
      type: 'line' as const,
      label: `server: ${field === 'requestsRunning' ? 'running' : 'waiting'}`,
      data: timeline.server.filter((m) => m[field] !== null).map((m) => ({ x: m.t / 1000, y: m[field]! })),
      borderColor: colours[(i + 2) % colours.length],
      pointRadius: 0,
      stepped: true,
      yAxisID: 'requests',
    }));
  charts.push(new Chart(canvas, { type: 'scatter', data: { datasets: [...runs, ...server] as never }, options: options as never }));
}
