/**
 * One wording of the capacity conclusions: what `load` prints and what the capacity report (and the
 * editor's capacity panel, which draws the same view) lists are the same lines, from one core function.
 * The real CLI against a 2-slot simulator, text and JSON of the same search.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { conclusionLines } from '../../webview/capacity';
import { runCli } from '../fixtures/cli';

const cli = (args: string[], cwd: string) => runCli(args, cwd);

let sim: RunningSim;
let dir: string;
beforeAll(async () => {
  sim = await startSim({ slots: 2, ttftBaseMs: 40, prefillMsPerInputToken: 0, decodeMsPerToken: 3, outputTokens: 50, jitterMs: 0 });
  dir = mkdtempSync(join(tmpdir(), 'pi-load-conclusions-'));
  writeFileSync(join(dir, 'ask.prompty'), '---\nname: ask\nmodel:\n  api: chat\n  configuration: { type: openai, name: gpt-4o-mini }\n---\nuser:\nSay something short.\n');
});
afterAll(async () => sim.close());

describe('capacity conclusions', () => {
  it('load text and the capacity report say the same conclusion lines', async () => {
    const args = ['load', 'ask.prompty', '--endpoint', sim.url, '--search', 'max-concurrency', '--limit', '8', '--requests', '16', '--slo', 'ttftMs.p90<=100', '--attainment', '0.8']; // 100 ms: any wait for a slot misses (cliLoad.test.ts says why)
    // One run: its text, and the view the report embeds (what the report and the editor's panel draw).
    const text = await cli([...args, '--report', 'capacity.html'], dir);
    expect(text.code).toBe(0);
    const html = readFileSync(join(dir, 'capacity.html'), 'utf8');
    const view = JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)![1]!);
    const lines = conclusionLines(view);
    expect(lines[0]).toMatch(/^Capacity: up to 2 concurrent requests within the SLOs/);
    expect(lines.some((l) => l.startsWith('Knee: none ('))).toBe(true);
    expect(lines.some((l) => l.startsWith('Saturation: not seen ('))).toBe(true);
    const printed = text.stdout.split('\n');
    for (const line of lines) expect(printed, line).toContain(line);
  });
});
