/**
 * Series colours of the comparison charts, one set per kind of VS Code theme. Our own, not the
 * theme's `--vscode-charts-*`: `charts.orange` is the minimap's find-match colour, 33% transparent,
 * about 1.5:1 against the editor in Light Modern and Dark Modern. Every colour here reaches 3:1
 * (WCAG 2.1 non-text contrast) against the editor background of the default themes of its kind —
 * checked by test/unit/webview/chartPalette.test.ts with the themes' own values.
 */

export type ThemeKind = 'light' | 'dark' | 'high-contrast' | 'high-contrast-light';

export interface ChartPalette {
  p50: string;
  p90: string;
  p99: string;
  adherence: string;
  tokens: string;
  /** One per revision in the timeline, in order (cycled past the end). */
  revisions: readonly string[];
  serverRunning: string;
  serverWaiting: string;
}

const LIGHT: ChartPalette = {
  p50: '#005fb8',
  p90: '#b35000',
  p99: '#8250df',
  adherence: '#116329',
  tokens: '#005fb8',
  revisions: ['#005fb8', '#b35000', '#8250df', '#116329', '#a40e26'],
  serverRunning: '#57606a',
  serverWaiting: '#a40e26',
};

const DARK: ChartPalette = {
  p50: '#4daafc',
  p90: '#f0883e',
  p99: '#c297ff',
  adherence: '#73c991',
  tokens: '#4daafc',
  revisions: ['#4daafc', '#f0883e', '#c297ff', '#73c991', '#ff7b72'],
  serverRunning: '#b0b0b0',
  serverWaiting: '#ff7b72',
};

export function chartPalette(kind: ThemeKind): ChartPalette {
  return kind === 'dark' || kind === 'high-contrast' ? DARK : LIGHT;
}

/**
 * The theme kind from the classes VS Code puts on a webview's body; the standalone report has none
 * and is drawn on white (media/panel.css falls back to #ffffff).
 */
export function themeKindOf(classes: { contains(token: string): boolean }): ThemeKind {
  if (classes.contains('vscode-high-contrast-light')) return 'high-contrast-light';
  if (classes.contains('vscode-high-contrast')) return 'high-contrast';
  if (classes.contains('vscode-dark')) return 'dark';
  return 'light';
}
