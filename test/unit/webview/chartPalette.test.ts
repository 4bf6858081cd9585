/**
 * The comparison charts as the panel draws them: every series colour reaches 3:1 (WCAG 2.1
 * non-text contrast) against the editor background of VS Code's default themes, every chart has a
 * title, the timeline's right-hand axis exists only with data, and a reused revision keeps its dots.
 */
import { describe, expect, it } from 'vitest';
import { comparisonView } from '../../../src/core/compare/view';
import { chartPalette, themeKindOf, type ThemeKind } from '../../../webview/chartPalette';
import { chartConfigurations, type ChartColours } from '../../../webview/charts';
import { syntheticComparison } from '../../fixtures/syntheticComparison';

/**
 * `editor.background` of the default themes, as VS Code ships them (microsoft/vscode,
 * extensions/theme-defaults/themes/*.json; the high-contrast ones are the registered defaults of
 * editorBackground, Color.black / Color.white, in src/vs/platform/theme/common/colors/editorColors.ts).
 */
const EDITOR_BACKGROUNDS: { theme: string; kind: ThemeKind; background: string }[] = [
  { theme: 'Light Modern', kind: 'light', background: '#FFFFFF' },
  { theme: 'Light+', kind: 'light', background: '#FFFFFF' },
  { theme: 'Dark Modern', kind: 'dark', background: '#1F1F1F' },
  { theme: 'Dark+', kind: 'dark', background: '#1E1E1E' },
  { theme: 'Dark High Contrast', kind: 'high-contrast', background: '#000000' },
  { theme: 'Light High Contrast', kind: 'high-contrast-light', background: '#FFFFFF' },
];

function rgb(hex: string): [number, number, number] {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) throw new Error(`not an opaque #rrggbb colour: ${hex}`);
  return [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)];
}

/** WCAG 2.1 relative luminance and contrast ratio. */
function luminance([r, g, b]: [number, number, number]): number {
  const channel = (c: number): number => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

function contrast(a: [number, number, number], b: [number, number, number]): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** A colour with alpha laid over a background, as the canvas shows it. */
function over(hex: string, alpha: number, background: string): [number, number, number] {
  const [fg, bg] = [rgb(hex), rgb(background)];
  return fg.map((c, i) => Math.round(c * alpha + bg[i]! * (1 - alpha))) as [number, number, number];
}

describe('chart series colours', () => {
  it('the colour the p90 series used to have (charts.orange = minimap find match #d18616, 33% transparent) is below 3:1: the reason for our own palette', () => {
    expect(contrast(over('#d18616', 0.33, '#FFFFFF'), rgb('#FFFFFF'))).toBeLessThan(1.6);
    expect(contrast(over('#d18616', 0.33, '#1F1F1F'), rgb('#1F1F1F'))).toBeLessThan(1.8);
  });

  for (const { theme, kind, background } of EDITOR_BACKGROUNDS) {
    it(`every series reaches 3:1 on ${theme} (${background})`, () => {
      const palette = chartPalette(kind);
      const colours = { p50: palette.p50, p90: palette.p90, p99: palette.p99, adherence: palette.adherence, tokens: palette.tokens, serverRunning: palette.serverRunning, serverWaiting: palette.serverWaiting, ...Object.fromEntries(palette.revisions.map((c, i) => [`revision ${i + 1}`, c])) };
      const ratios = Object.entries(colours).map(([series, colour]) => ({ series, colour, ratio: Number(contrast(rgb(colour), rgb(background)).toFixed(2)) }));
      expect(ratios.filter((r) => r.ratio < 3), JSON.stringify(ratios)).toEqual([]);
    });
  }

  it('p50, p90 and p99 are three different colours, and revisions too', () => {
    for (const kind of ['light', 'dark'] as const) {
      const p = chartPalette(kind);
      expect(new Set([p.p50, p.p90, p.p99]).size).toBe(3);
      expect(new Set(p.revisions).size).toBe(p.revisions.length);
    }
  });

  it('the theme kind comes from the classes VS Code puts on the webview body', () => {
    const classes = (...names: string[]) => ({ contains: (t: string) => names.includes(t) });
    expect(themeKindOf(classes('vscode-light'))).toBe('light');
    expect(themeKindOf(classes('vscode-dark'))).toBe('dark');
    expect(themeKindOf(classes('vscode-high-contrast'))).toBe('high-contrast');
    expect(themeKindOf(classes('vscode-high-contrast', 'vscode-high-contrast-light'))).toBe('high-contrast-light');
    expect(themeKindOf(classes())).toBe('light');
  });
});

describe('chart configurations', () => {
  const colours: ChartColours = { palette: chartPalette('light'), foreground: '#3b3b3b', grid: '#e5e5e5' };
  const base = comparisonView(syntheticComparison(2, 20));
  const [a, b] = base.revisions;
  const runs = Array.from({ length: 6 }, (_, i) => ({ t: i * 500, revision: (i % 2 === 0 ? a : b)!.rev, ttftMs: 200 + i, ok: true }));
  type Options = { plugins: { title: { display: boolean; text: string } }; scales: Record<string, { title?: { text: string } }> };
  type Dataset = { label: string; data: unknown[]; backgroundColor?: string; borderColor?: string };

  it('every chart has a title, and p90 is drawn in the palette\'s p90 colour', () => {
    const configs = chartConfigurations({ ...base, timeline: { serverKind: 'unknown', runs, server: [], metricsGaps: 0 } }, colours);
    expect(Object.keys(configs).sort()).toEqual(['adherence', 'e2e', 'timeline', 'tokens', 'ttft']);
    for (const [name, config] of Object.entries(configs)) {
      const title = (config!.options as unknown as Options).plugins.title;
      expect(title.display, name).toBe(true);
      expect(title.text.length, name).toBeGreaterThan(10);
    }
    const ttft = configs.ttft!.data.datasets as unknown as Dataset[];
    expect(ttft.map((d) => [d.label, d.backgroundColor])).toEqual([['p50', colours.palette.p50], ['p90', colours.palette.p90], ['p99', colours.palette.p99]]);
  });

  it('the timeline has no right-hand axis without server data, and one titled in full with it', () => {
    const without = chartConfigurations({ ...base, timeline: { serverKind: 'unknown', runs, server: [], metricsGaps: 0 } }, colours).timeline!;
    expect(Object.keys((without.options as unknown as Options).scales)).toEqual(['x', 'y']);
    const server = [{ t: 0, requestsRunning: 1, requestsWaiting: 0, kvCacheUsage: null }, { t: 1000, requestsRunning: 2, requestsWaiting: 1, kvCacheUsage: null }];
    const withServer = chartConfigurations({ ...base, timeline: { serverKind: 'llama.cpp', runs, server, metricsGaps: 0 } }, colours).timeline!;
    const scales = (withServer.options as unknown as Options).scales;
    expect(scales.requests?.title?.text).toBe('server requests');
    const lines = (withServer.data.datasets as unknown as Dataset[]).filter((d) => d.label.startsWith('server'));
    expect(lines.map((d) => d.borderColor)).toEqual([colours.palette.serverRunning, colours.palette.serverWaiting]);
  });

  it('a revision whose runs were reused from the store keeps its dots (hollow), and one with none says why', () => {
    const reusedRuns = [...runs.filter((r) => r.revision === b!.rev), { t: -4000, revision: a!.rev, ttftMs: 190, ok: true, reused: true }, { t: -3000, revision: a!.rev, ttftMs: 210, ok: true, reused: true }];
    const view = { ...base, revisions: [{ ...a!, runsReused: 2, runsNew: 0 }, b!], timeline: { serverKind: 'unknown', runs: reusedRuns, server: [], metricsGaps: 0 } };
    const sets = chartConfigurations(view, colours).timeline!.data.datasets as unknown as Dataset[];
    const ofA = sets.filter((d) => d.label.startsWith(a!.label));
    expect(ofA.map((d) => d.data.length)).toEqual([2]);
    expect(ofA[0]!.label).toContain('reused from the store');
    const noPoints = { ...view, timeline: { ...view.timeline, runs: runs.filter((r) => r.revision === b!.rev) } };
    const label = (chartConfigurations(noPoints, colours).timeline!.data.datasets as unknown as Dataset[]).find((d) => d.label.startsWith(a!.label))!.label;
    expect(label).toContain('2 runs reused from the store');
  });
});
