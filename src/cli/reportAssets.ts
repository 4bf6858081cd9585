import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The report's renderer (dist/webview.js) and styles (media/panel.css), found beside the CLI bundle. */
export function reportAssets(): { script: string; css: string } {
  const dist = existsSync(join(__dirname, 'webview.js')) ? __dirname : join(__dirname, '..', '..', 'dist');
  return { script: readFileSync(join(dist, 'webview.js'), 'utf8'), css: readFileSync(join(dist, '..', 'media', 'panel.css'), 'utf8') };
}
