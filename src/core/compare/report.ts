/**
 * The standalone HTML report (`compare --report`): the panel's own renderer and styles inlined with
 * the comparison as JSON, under a CSP that allows nothing but them. Works offline.
 */
import { randomBytes } from 'node:crypto';
import { scrubSecrets } from '../endpoint/secrets';
import type { ComparisonResult } from './compare';
import { comparisonView } from './view';

export function renderReportHtml(result: ComparisonResult, assets: { script: string; css: string }, extras: { capacityLines?: string[] } = {}): string {
  return standaloneReportHtml(`Prompt Insight: ${result.prompt || result.file}`, comparisonView(result, extras), assets);
}

/** A report page: the panel's renderer and styles inlined, the data as JSON, a CSP that allows nothing else. */
export function standaloneReportHtml(titleText: string, view: unknown, assets: { script: string; css: string }): string {
  const nonce = randomBytes(16).toString('base64');
  // `<` escaped so no string inside the data can close the script element.
  const data = scrubSecrets(JSON.stringify(view)).replace(/</g, '\\u003c');
  const title = titleText.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style nonce="${nonce}">${assets.css.replace(/<\/style/gi, '<\\/style')}</style>
</head>
<body class="report">
<main id="app" aria-live="polite"></main>
<script type="application/json" id="report-data">${data}</script>
<script nonce="${nonce}">${assets.script.replace(/<\/script/gi, '<\\/script')}</script>
</body>
</html>
`;
}
