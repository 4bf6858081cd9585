/** docs/instrument-your-app.md shows each app exactly as the interop engine test runs it (test/interop/apps). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DOC = readFileSync('docs/instrument-your-app.md', 'utf8');
const APPS = 'test/interop/apps';

describe('docs/instrument-your-app.md', () => {
  const shown = new Map([...DOC.matchAll(/<!-- snippet: ([\w.-]+) -->\n```\w+\n([\s\S]*?)\n```/g)].map((m) => [m[1]!, m[2]!]));

  it('every app the tests run is in the page, character for character', () => {
    const apps = readdirSync(APPS).filter((f) => f !== 'harness.mjs');
    expect([...shown.keys()].sort()).toEqual(apps.sort());
    for (const app of apps) expect(shown.get(app), app).toBe(readFileSync(join(APPS, app), 'utf8').trimEnd());
  });
});
