/**
 * The Production view: per source, the versions production saw (the text in the editor marked, versions
 * not in git history said), one chart per source — hourly TTFT p50 and p99 per version, requests per
 * hour as bars, the version changes on the time axis, the baseline band of the hourly p99 where history
 * allows, the anomalies against it shaded — the anomalies in words, and each version change with the
 * hours before and after it. In VS Code (a host to post to) also the window picker and the two follow-up
 * commands. No HTML strings from data.
 */
import { BarController, BarElement, CategoryScale, Chart, Filler, Legend, LinearScale, LineController, LineElement, PointElement, Title, Tooltip, type ChartConfiguration, type Plugin } from 'chart.js';
import type { ProductionSourceView, ProductionVersionRow, ProductionView, ProductionWindow } from '../src/core/telemetry/productionView';
import type { ProductionAnomaly } from '../src/core/telemetry/productionAnomalyData';
import type { ProductionPageToHost } from '../src/protocol/productionWebview';
import { clipToAxis, fitAxis } from '../src/core/metrics/axisFit';
import type { WindowFigures } from '../src/core/telemetry/prodTimeline';
import { formatMs } from '../src/core/metrics/format';
import { chartPalette, themeKindOf } from './chartPalette';
import { el } from './dom';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Filler, Title, Tooltip, Legend);

/** The extension host, when the page runs in VS Code (absent in a standalone report). */
export interface ProductionHost {
  post(message: ProductionPageToHost): void;
}

const WINDOW_WORDS: Record<ProductionWindow, string> = { '24h': 'last 24 h', '7d': 'last 7 days', '30d': 'last 30 days', 'since-change': 'since the last version change' };
const drawn: Chart[] = [];
/** The anomaly the user clicked (prefills the follow-up commands), by its source and position. */
let selected: { source: number; index: number } | undefined;

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

export function renderProduction(target: HTMLElement, view: ProductionView, host?: ProductionHost): number {
  const started = performance.now();
  selected = undefined;
  const status = el('p', { className: 'status', attrs: { role: 'status' } });
  const parts: Node[] = [el('header', {}, [el('h2', { text: `Production of ${view.prompt} — ${view.file}` })])];
  if (host) parts.push(pageControls(view, host, status), status);
  const canvases: [HTMLCanvasElement, ProductionSourceView][] = [];
  for (const [sourceIndex, source] of view.sources.entries()) {
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
      const canvas = el('canvas', { attrs: { role: 'img', 'data-source': String(sourceIndex), 'aria-label': `hourly TTFT p50 and p99 and requests per version from ${source.label}${source.anomalies?.length ? `, ${source.anomalies.length} anomalies shaded` : ''}` } });
      section.append(el('figure', { className: 'chart production' }, [el('div', { className: 'chart-box' }, [canvas])]));
      canvases.push([canvas, source]);
    }
    section.append(el('p', { className: 'meta baseline', text: `Baseline band (hourly TTFT p99, all versions): ${source.baseline}` }));
    section.append(anomalyList(source.anomalies ?? [], sourceIndex, status));
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

/** The window picker and the two follow-up commands (prefilled from the selected anomaly, else the window). */
function pageControls(view: ProductionView, host: ProductionHost, status: HTMLElement): HTMLElement {
  const picker = el('select', { attrs: { id: 'production-window', 'aria-label': 'time shown' } }, (Object.keys(WINDOW_WORDS) as ProductionWindow[]).map((w) => el('option', { text: WINDOW_WORDS[w], attrs: { value: w } })));
  picker.value = view.window ?? 'since-change';
  picker.addEventListener('change', () => {
    status.textContent = `Reading ${WINDOW_WORDS[picker.value as ProductionWindow]}…`;
    host.post({ type: 'productionWindow', window: picker.value as ProductionWindow });
  });
  const action = (name: 'sampleIntoTests' | 'decideGrayRelease') => () => host.post({ type: 'productionAction', action: name, ...actionRange(view) });
  const sample = el('button', { text: 'Sample into tests…', attrs: { type: 'button', title: 'Turn production requests of this time (or of the selected anomaly) into test cases' } });
  const decide = el('button', { text: 'Decide gray release', attrs: { type: 'button', title: 'Decide ship or roll back for the version of this time (or of the selected anomaly)' } });
  sample.addEventListener('click', action('sampleIntoTests'));
  decide.addEventListener('click', action('decideGrayRelease'));
  return el('div', { className: 'controls production-controls' }, [el('label', { text: 'Show ', attrs: { for: 'production-window' } }), picker, sample, decide]);
}

/** The selected anomaly's version and hours, or the window shown. */
function actionRange(view: ProductionView): { version?: string; since?: string; until?: string } {
  const iso = (ms: number) => new Date(ms).toISOString();
  const anomaly = selected ? view.sources[selected.source]?.anomalies?.[selected.index] : undefined;
  if (anomaly) {
    const last = anomaly.spans.at(-1)!;
    const version = anomaly.causeVersion ?? anomaly.version;
    return { ...(version ? { version } : {}), since: iso(anomaly.spans[0]!.startMs), ...(last.endMs !== null ? { until: iso(last.endMs) } : {}) };
  }
  const timeline = view.sources.find((s) => s.timeline)?.timeline;
  return timeline ? { since: iso(timeline.sinceMs), until: iso(timeline.untilMs) } : {};
}

/** The anomalies in words under the chart; a click selects one (and marks it on the chart). */
function anomalyList(anomalies: readonly ProductionAnomaly[], sourceIndex: number, status: HTMLElement): HTMLElement {
  if (anomalies.length === 0) return el('p', { className: 'meta anomalies-none', text: 'No anomaly against the baseline in this time.' });
  const items = anomalies.map((a, index) => {
    const item = el('li', { className: a.ongoing ? 'anomaly ongoing' : 'anomaly', text: a.sentence, attrs: { tabindex: '0', role: 'button', 'aria-pressed': 'false' } });
    const select = () => {
      selected = { source: sourceIndex, index };
      for (const other of item.parentElement?.querySelectorAll('li') ?? []) other.setAttribute('aria-pressed', String(other === item));
      status.textContent = `Selected: ${a.label} anomaly — the buttons above use its version and hours.`;
      redrawSelection();
    };
    item.addEventListener('click', select);
    item.addEventListener('keydown', (e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), select()));
    return item;
  });
  return el('div', { className: 'anomalies' }, [el('h4', { text: 'Anomalies against the baseline (as watch finds them)' }), el('ul', { className: 'anomaly-list', attrs: { 'aria-label': 'anomalies' } }, items)]);
}

/** The anomalies' hours shaded on the chart (the selected one stronger), at the category axis's hour slots. */
const anomalySpans: Plugin = {
  id: 'anomalySpans',
  beforeDatasetsDraw(chart) {
    const options = (chart.options.plugins as { anomalySpans?: { ranges: { from: number; to: number; selected: boolean }[] } }).anomalySpans;
    const x = chart.scales.x;
    if (!options || !x) return;
    const { ctx, chartArea } = chart;
    const slot = x.getPixelForValue(1) - x.getPixelForValue(0) || 8;
    ctx.save();
    for (const r of options.ranges) {
      ctx.fillStyle = r.selected ? 'rgba(230, 80, 60, 0.35)' : 'rgba(230, 80, 60, 0.16)';
      const left = x.getPixelForValue(r.from) - slot / 2;
      ctx.fillRect(left, chartArea.top, x.getPixelForValue(r.to) + slot / 2 - left, chartArea.bottom - chartArea.top);
    }
    ctx.restore();
  },
};

/** Version changes: a dashed line at the hour's slot and "◆ version" at the top of the chart, staggered so that neighbours do not overlap. */
const versionChanges: Plugin = {
  id: 'versionChanges',
  afterDatasetsDraw(chart) {
    const options = (chart.options.plugins as { versionChanges?: { changes: { index: number; version: string }[]; color: string } }).versionChanges;
    const x = chart.scales.x;
    if (!options?.changes.length || !x) return;
    const { ctx, chartArea } = chart;
    ctx.save();
    ctx.font = '11px sans-serif';
    ctx.fillStyle = options.color;
    ctx.strokeStyle = options.color;
    ctx.setLineDash([3, 3]);
    let lastRight = -Infinity;
    let row = 0;
    for (const change of options.changes) {
      const at = x.getPixelForValue(change.index);
      ctx.beginPath();
      ctx.moveTo(at, chartArea.top);
      ctx.lineTo(at, chartArea.bottom);
      ctx.stroke();
      const text = `◆ ${shortVersion(change.version)}`;
      const width = ctx.measureText(text).width;
      // Right of the line when it fits, else left of it; a label that would touch the one before goes a row lower.
      const left = at + 3 + width <= chartArea.right ? at + 3 : at - 3 - width;
      row = left <= lastRight + 4 ? row + 1 : 0;
      ctx.fillText(text, left, chartArea.top + 12 + row * 13);
      lastRight = left + width;
    }
    ctx.restore();
  },
};

/** A long content hash shortened for the marker; the tooltip and the tables keep it whole. */
export function shortVersion(version: string): string {
  return version.length > 18 ? `${version.slice(0, 17)}…` : version;
}

/** The tooltip's title: the hour, and the version change in it. */
function changeTitle(hours: readonly number[], changeAt: ReadonlyMap<number, string>, index: number | undefined): string {
  if (index === undefined || hours[index] === undefined) return '';
  const t = hours[index]!;
  return changeAt.has(t) ? `${hourLabel(t)} · version change to ${changeAt.get(t)}` : hourLabel(t);
}

/** Hour indexes each anomaly covers (inclusive), for the shading. */
export function anomalyRanges(hours: readonly number[], anomalies: readonly ProductionAnomaly[], sourceSelected?: number): { from: number; to: number; selected: boolean }[] {
  return anomalies.flatMap((a, index) =>
    a.spans.flatMap((s) => {
      const inside = hours.map((t, i) => (t >= s.startMs && t < (s.endMs ?? Infinity) ? i : -1)).filter((i) => i >= 0);
      return inside.length ? [{ from: inside[0]!, to: inside.at(-1)!, selected: index === sourceSelected }] : [];
    }),
  );
}

export function productionChartConfiguration(source: ProductionSourceView, foreground: string, grid: string, kind = themeKindOf(document.body.classList), selectedIn?: number): ChartConfiguration {
  const palette = chartPalette(kind);
  const timeline = source.timeline!;
  const hours = [...new Set([...timeline.versions.flatMap((v) => v.points.map((p) => p.t)), ...timeline.band.points.map((p) => p.t)])].sort((a, b) => a - b);
  const changeAt = new Map(timeline.changes.map((c) => [Math.floor(c.t / timeline.hourMs) * timeline.hourMs, c.version]));
  // The axis keeps short hour labels; a version change is a marker inside the chart (a label of its own on
  // the axis would collide with the hours beside it), and its hour's tooltip names it.
  const labels = hours.map((t) => hourLabel(t));
  const changes = hours.flatMap((t, index) => (changeAt.has(t) ? [{ index, version: changeAt.get(t)! }] : []));
  const at = <P extends { t: number }>(points: readonly P[]) => new Map(points.map((p) => [p.t, p] as const));
  const datasets: object[] = [];
  const band = at(timeline.band.points);
  // The y-axis fitted to the TTFT lines (robust: a few extreme hours are drawn at the top edge, marked).
  const ttftValues = timeline.versions.flatMap((v) => v.points.flatMap((p) => [p.ttftP50Ms, p.ttftP99Ms]));
  const axis = fitAxis(ttftValues);
  if (timeline.band.points.some((p) => p.lower !== null)) {
    // The band's lower edge has no legend entry of its own (filtered below by its empty label).
    datasets.push({ type: 'line', label: '', data: hours.map((t) => clipToAxis(band.get(t)?.lower ?? null, axis.max)), borderColor: palette.serverRunning, borderWidth: 1, pointRadius: 0, yAxisID: 'y' });
    datasets.push({ type: 'line', label: 'baseline band (p99)', data: hours.map((t) => clipToAxis(band.get(t)?.upper ?? null, axis.max)), borderColor: palette.serverRunning, borderWidth: 1, pointRadius: 0, backgroundColor: 'rgba(128,128,128,0.2)', fill: '-1', yAxisID: 'y' });
  }
  timeline.versions.forEach((v, i) => {
    const colour = palette.revisions[i % palette.revisions.length]!;
    const points = at(v.points);
    for (const [field, name, dash] of [['ttftP50Ms', 'p50', []], ['ttftP99Ms', 'p99', [6, 3]]] as const) {
      const actual = hours.map((t) => points.get(t)?.[field] ?? null);
      const outlier = actual.map((value) => value !== null && axis.max !== undefined && value > axis.max);
      datasets.push({
        type: 'line', label: `${v.version} TTFT ${name}`, data: actual.map((value) => clipToAxis(value, axis.max)), actual,
        borderColor: colour, backgroundColor: colour, borderDash: dash, spanGaps: false, yAxisID: 'y',
        pointStyle: outlier.map((o) => (o ? 'triangle' : 'circle')), pointRadius: outlier.map((o) => (o ? 5 : 2)),
      });
    }
    datasets.push({ type: 'bar', label: `${v.version} requests`, data: hours.map((t) => points.get(t)?.requests ?? null), backgroundColor: `${colour}55`, yAxisID: 'requests' });
  });
  return {
    type: 'bar',
    plugins: [anomalySpans, versionChanges],
    data: { labels, datasets: datasets as never },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      plugins: {
        title: { display: true, text: `TTFT per hour and version (◆ version change${source.anomalies?.length ? ', shaded: anomaly' : ''}${axis.clipped ? ', ▲ above the axis' : ''})`, color: foreground },
        legend: { labels: { color: foreground, filter: (item: { text: string }) => item.text !== '' } },
        tooltip: { filter: (item: { dataset: { label?: string } }) => item.dataset.label !== '', callbacks: { label: tooltipLabel, title: (items: { dataIndex: number }[]) => changeTitle(hours, changeAt, items[0]?.dataIndex) } },
        anomalySpans: { ranges: anomalyRanges(hours, source.anomalies ?? [], selectedIn) },
        versionChanges: { changes, color: foreground },
      } as never,
      scales: {
        x: { ticks: { color: foreground, autoSkip: true, autoSkipPadding: 12, maxTicksLimit: 12, maxRotation: 0 }, grid: { color: grid } },
        y: { beginAtZero: true, ...(axis.max !== undefined ? { max: axis.max } : {}), position: 'left', title: { display: true, text: 'TTFT ms', color: foreground }, ticks: { color: foreground, maxTicksLimit: 8 }, grid: { color: grid } },
        requests: { beginAtZero: true, position: 'right', title: { display: true, text: 'requests / hour', color: foreground }, ticks: { color: foreground, maxTicksLimit: 8 }, grid: { drawOnChartArea: false } },
      } as never,
    },
  };
}

/** A line's tooltip says its real value, also when the point is drawn at the top edge. */
function tooltipLabel(item: { dataset: { label?: string; actual?: (number | null)[] }; dataIndex: number; formattedValue: string }): string {
  const actual = item.dataset.actual?.[item.dataIndex];
  if (actual === undefined || actual === null) return `${item.dataset.label}: ${item.formattedValue}`;
  const shown = Number(item.formattedValue.replace(/,/g, ''));
  return `${item.dataset.label}: ${ms(actual)}${actual > shown ? ' (above the axis)' : ''}`;
}

let drawnCanvases: [HTMLCanvasElement, ProductionSourceView][] = [];

function drawProductionCharts(canvases: [HTMLCanvasElement, ProductionSourceView][]): void {
  for (const chart of drawn.splice(0)) chart.destroy();
  drawnCanvases = canvases;
  const style = getComputedStyle(document.body);
  const foreground = style.getPropertyValue('--vscode-foreground').trim() || style.color || '#333';
  const grid = style.getPropertyValue('--vscode-panel-border').trim() || 'rgba(128,128,128,0.3)';
  for (const [canvas, source] of canvases) {
    const sourceIndex = Number(canvas.dataset.source);
    drawn.push(new Chart(canvas, productionChartConfiguration(source, foreground, grid, themeKindOf(document.body.classList), selected?.source === sourceIndex ? selected.index : undefined)));
  }
  document.body.dataset.chartsDrawn = String(Number(document.body.dataset.chartsDrawn ?? '0') + canvases.length);
}

/** A selection changes only the shading: the charts' shading options updated in place (not counted as a redraw). */
function redrawSelection(): void {
  drawn.forEach((chart, i) => {
    const [canvas, source] = drawnCanvases[i]!;
    const sourceIndex = Number(canvas.dataset.source);
    const labels = chart.data.labels?.length ?? 0;
    const hours = [...new Set([...source.timeline!.versions.flatMap((v) => v.points.map((p) => p.t)), ...source.timeline!.band.points.map((p) => p.t)])].sort((a, b) => a - b);
    if (hours.length !== labels) return;
    (chart.options.plugins as { anomalySpans?: unknown }).anomalySpans = { ranges: anomalyRanges(hours, source.anomalies ?? [], selected?.source === sourceIndex ? selected.index : undefined) };
    chart.update('none');
  });
}
