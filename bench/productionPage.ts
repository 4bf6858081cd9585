/**
 * The Production page's data on a week of 100k spans (two versions, a gray release, one slow night),
 * through the built language server over stdio: from opening the prompt to the page's view (the read,
 * the hourly figures, the baseline and its anomalies), a new server each time; then the view again
 * from the server's cache, and a window change (30 d) that reads again. Beside it, the same week
 * through the CLI (`prod --json`, a whole process), the peer that reads the same file without a cache.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { DidOpenTextDocumentNotification } from 'vscode-languageserver-protocol/node';
import { productionViewRequest, type ProductionViewParams, type ProductionViewResult } from '../src/protocol/productionRequest';
import { seededRandom } from '../src/core/stats/random';
import { LspHarness } from '../test/server/lspHarness';
import { TestRepo } from '../test/fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../test/fixtures/otlpTraces';
import { timedCli } from './timedCli';
import { fmt, median, table } from './stats';

const SPANS = 100_000;
const STARTS = 5;
const HOUR = 3_600_000;
const TEXT_A = '---\nmodel: gpt-test\n---\nSay hello to the user.\n';
const TEXT_B = '---\nmodel: gpt-test\n---\nSay hello to the user, briefly and warmly.\n';

/** The week: A all along, B from two days before the end on 30% of requests; TTFT ×4 from 01:00 to 04:00 three nights before. */
function writeWeek(root: string, a: string, b: string, endMs: number): void {
  const random = seededRandom(7);
  const startMs = endMs - 7 * 24 * HOUR;
  const slowFrom = endMs - 3 * 24 * HOUR - ((endMs % (24 * HOUR)) - HOUR);
  const lines: string[] = [];
  for (let done = 0; done < SPANS; done += 500) {
    const spans = Array.from({ length: 500 }, (_, i) => {
      const t = startMs + ((done + i) / SPANS) * 7 * 24 * HOUR;
      const onB = t > endMs - 2 * 24 * HOUR && random() < 0.3;
      const slow = t >= slowFrom && t < slowFrom + 3 * HOUR ? 4 : 1;
      const ttftMs = Math.round((250 + random() * 150) * slow);
      return otlpSpan({ promptName: 'greet', version: (onB ? b : a).slice(0, 7), startMs: t, ttftMs, e2eMs: ttftMs + 400 + Math.round(random() * 200) });
    });
    lines.push(tracesLine(spans));
  }
  mkdirSync(join(root, 'telemetry'), { recursive: true });
  writeFileSync(join(root, 'telemetry', 'week.jsonl'), `${lines.join('\n')}\n`);
}

async function viewOnce(server: LspHarness, params: ProductionViewParams): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const result = (await server.connection.sendRequest(productionViewRequest, params)) as ProductionViewResult;
    if (result && 'view' in result) return performance.now() - t0;
    if (!result || !/reading/.test(result.problem)) throw new Error(`no production view: ${JSON.stringify(result)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function benchProductionPage(): Promise<string> {
  const repo = new TestRepo();
  const a = repo.commit('Greeting', { 'greet.prompt': TEXT_A });
  const b = repo.commit('Warmer greeting', { 'greet.prompt': TEXT_B });
  writeWeek(repo.root, a, b, Date.now());
  const uri = pathToFileURL(join(repo.root, 'greet.prompt')).toString();
  const settings = { production: { sources: [{ traces: 'telemetry/*.jsonl', since: '7d' }] } };

  const opens: number[] = [];
  const cached: number[] = [];
  const windows: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const server = new LspHarness();
    await server.initialize({ settings, workspaceFolders: [repo.root], workspaceTrusted: true }, 'as-given');
    const t0 = performance.now();
    await server.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'dotprompt', version: 1, text: TEXT_B } });
    await viewOnce(server, { uri, promptIndex: 0 });
    opens.push(performance.now() - t0);
    cached.push(await viewOnce(server, { uri, promptIndex: 0 }));
    windows.push(await viewOnce(server, { uri, promptIndex: 0, window: '30d' }));
    await server.dispose();
  }
  const cli: number[] = [];
  for (let i = 0; i < STARTS; i++) cli.push(timedCli(['prod', 'greet.prompt', '--traces', 'telemetry/week.jsonl', '--since', '7d', '--json'], repo.root).seconds * 1000);
  rmSync(repo.root, { recursive: true, force: true }); // the week's ~60 MB

  return [
    `## Production page: a week of ${SPANS.toLocaleString('en-US')} spans (median of ${STARTS}; bar: opens in ≤ 1.5 s)`,
    '',
    table(
      ['what', 'median ms', 'max ms'],
      [
        ['editor: open the prompt → Production view (new server: read, hours, baseline, anomalies)', fmt(median(opens), 0), fmt(Math.max(...opens), 0)],
        ['editor: the view again (the server’s cache)', fmt(median(cached), 1), fmt(Math.max(...cached), 1)],
        ['editor: window changed to 30 d (read again)', fmt(median(windows), 0), fmt(Math.max(...windows), 0)],
        ['CLI: prod --json on the same file (whole process)', fmt(median(cli), 0), fmt(Math.max(...cli), 0)],
      ],
    ),
  ].join('\n');
}
