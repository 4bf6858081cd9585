/**
 * Rendering is bounded in size and time, the diagnostic says which limit stopped it, and a render
 * process stopped by a limit never fails the harmless render after it: through the real CLI bundle
 * (dist/cli.js and its render processes). Build first (`npm run build`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLI = resolve('dist/cli.js');

/** 79 bytes that double a string 26 times: 67M characters (455 MB of heap) on an unbounded engine. */
const DOUBLING = '{% set s = "x" %}{% for i in range(26) %}{% set s = s ~ s %}{% endfor %}{{ s }}';
const LOOP = '{% for a in range(10000) %}{% for b in range(10000) %}{% for c in range(10000) %}x{% endfor %}{% endfor %}{% endfor %}';

interface CliFile {
  file: string;
  prompts: { tokens: { messages: { content: string }[] } }[];
  diagnostics: { code: string; message: string }[];
}

async function tokens(files: Record<string, string>): Promise<{ results: CliFile[]; elapsedMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-limits-'));
  const paths = Object.entries(files).map(([name, text], i) => {
    // The same file may be listed twice: each entry gets its own copy, in order.
    const path = join(dir, `${String(i).padStart(2, '0')}-${name}`);
    writeFileSync(path, text);
    return path;
  });
  const started = Date.now();
  const { stdout } = await run(process.execPath, [CLI, 'tokens', '--json', '--rendered', ...paths], { timeout: 60_000 });
  return { results: JSON.parse(stdout).files as CliFile[], elapsedMs: Date.now() - started };
}

const prompty = (name: string, body: string) => `---\nname: ${name}\nsample:\n  who: Ada\n---\nuser:\n${body}\n`;
const templateError = (file: CliFile) => file.diagnostics.find((d) => d.code === 'template-error')?.message;

describe('render limits, said in the diagnostic', () => {
  it('a short template doubling a string stops at the 4 MB rendered-size limit, quickly', async () => {
    expect(DOUBLING.length).toBeLessThan(130);
    const { results, elapsedMs } = await tokens({ 'double.prompty': prompty('double', DOUBLING) });
    expect(templateError(results[0]!)).toMatch(/grew past 4,194,304 characters \(4 MB\).*\(rendered-size limit\)/);
    // Counted as written: the template's own text, not 67M characters.
    expect(results[0]!.prompts[0]!.tokens.messages[0]!.content).toBe(DOUBLING);
    expect(elapsedMs).toBeLessThan(10_000);
  }, 70_000);

  it('a template that loops for minutes stops at the time limit', async () => {
    const { results, elapsedMs } = await tokens({ 'loop.prompty': prompty('loop', LOOP) });
    expect(templateError(results[0]!)).toMatch(/did not finish rendering within 2000 ms.*\(time limit\)/);
    expect(elapsedMs).toBeLessThan(15_000);
  }, 70_000);
});

describe('a render process stopped by a limit and replaced', () => {
  it('its late exit never fails the next harmless render (loop, fine, loop, fine)', async () => {
    const fine = prompty('fine', 'Hello {{ who }}');
    const { results } = await tokens({ 'loop.prompty': prompty('loop', LOOP), 'fine.prompty': fine, 'loop2.prompty': prompty('loop', LOOP), 'fine2.prompty': fine });
    // Each harmless render after a stopped one is rendered, not "the template engine stopped unexpectedly".
    expect(results.map((file) => templateError(file) ?? file.prompts[0]!.tokens.messages[0]!.content)).toEqual([
      expect.stringContaining('(time limit)'), 'Hello Ada', expect.stringContaining('(time limit)'), 'Hello Ada',
    ]);
  }, 70_000);
});
