/**
 * Real Prometheus servers (Debian's) for the engine tests: one whose history is written by `promtool
 * tsdb create-blocks-from openmetrics`, for weeks of history (retention raised so the backfilled
 * blocks are not dropped at start: the default keeps 15 days); and one that scrapes a live target
 * every 500 ms. Each resolves once a query the test names answers with at least one series.
 *
 * With PROMPT_INSIGHT_PROMETHEUS_BACKEND=victoria-metrics the same tests run against VictoriaMetrics
 * (test/engine/install-victoria.sh): the history imported through its /api/v1/import/prometheus, the
 * live target scraped by its own promscrape — the same query API, another store's answers.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitUntilReady } from '../fixtures/localServers';

const run = promisify(execFile);

/** Buckets 15% apart from 400 ms to ~5.9 s (few, to keep the backfill small): a p99 interpolated in them is within 15% of the true one. */
export const FINE_BOUNDS = Array.from({ length: 20 }, (_, i) => Math.round(0.4 * 1.15 ** i * 10_000) / 10_000);

/**
 * One histogram's cumulative series over `steps` samples `stepS` apart from `startS`: at each step
 * `perStep(k)` new observations, all of value `valueS(k)` seconds (null: no sample at that step). At
 * step `resetAt` the counters start again from 0, as a restarted client's do.
 */
export function histogramLines(name: string, labels: string, startS: number, stepS: number, steps: number, perStep: (k: number) => number, valueS: (k: number) => number | null, options: { resetAt?: number; bounds?: readonly number[] } = {}): string[] {
  const bounds = options.bounds ?? FINE_BOUNDS;
  const les = [...bounds.map(String), '+Inf'];
  const counts = new Array<number>(les.length).fill(0);
  let count = 0;
  let sum = 0;
  const rows: string[][] = les.map(() => []);
  const countRows: string[] = [];
  const sumRows: string[] = [];
  for (let k = 0; k < steps; k++) {
    const value = valueS(k);
    if (value === null) continue;
    if (k === options.resetAt) {
      counts.fill(0);
      count = 0;
      sum = 0;
    }
    const n = perStep(k);
    les.forEach((le, i) => {
      if (le === '+Inf' || value <= Number(le)) counts[i]! += n;
    });
    count += n;
    sum += n * value;
    const t = startS + k * stepS;
    les.forEach((le, i) => rows[i]!.push(`${name}_bucket{${labels},le="${le}"} ${counts[i]} ${t}`));
    countRows.push(`${name}_count{${labels}} ${count} ${t}`);
    sumRows.push(`${name}_sum{${labels}} ${sum.toFixed(6)} ${t}`);
  }
  return [...rows.flat(), ...countRows, ...sumRows];
}

export interface RunningPrometheus {
  url: string;
  stop(): void;
}

export const BACKEND = process.env.PROMPT_INSIGHT_PROMETHEUS_BACKEND === 'victoria-metrics' ? 'victoria-metrics' : 'prometheus';
const VICTORIA = join(process.env.PROMPT_INSIGHT_TOOLS ?? resolve('.e2e-tools'), 'victoria-metrics/root/usr/bin/victoria-metrics');

/** `om`: OpenMetrics lines (with their # TYPE lines), without the final # EOF. */
export async function startRunningPrometheus(om: string[], ready: string): Promise<RunningPrometheus> {
  if (BACKEND === 'victoria-metrics') return startVictoria(om, ready);
  const dir = mkdtempSync(join(tmpdir(), 'pi-prom-backfill-'));
  writeFileSync(join(dir, 'history.om'), `${om.join('\n')}\n# EOF\n`);
  await run('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', '--quiet', join(dir, 'history.om'), join(dir, 'data')], { timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  writeFileSync(join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 15s\nscrape_configs: []\n');
  return startPrometheus(dir, ['--storage.tsdb.retention.time=400d'], 'Prometheus (backfilled)', ready, 120_000);
}

/** Scrapes `target` (host:port, its /metrics) as job `job` every 500 ms; ready once `ready` returns a series. */
export async function startScrapingPrometheus(job: string, target: string, ready: string): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-prom-scrape-'));
  writeFileSync(join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\nscrape_configs:\n  - job_name: ${job}\n    static_configs:\n      - targets: ['${target}']\n`);
  if (BACKEND === 'victoria-metrics') return startVictoriaProcess(dir, [`-promscrape.config=${join(dir, 'prometheus.yml')}`], ready, 60_000);
  return startPrometheus(dir, [], `Prometheus (scraping ${job})`, ready, 60_000);
}

/** VictoriaMetrics with the history imported (Prometheus text format: timestamps in ms) and flushed to search. */
async function startVictoria(om: string[], ready: string): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'pi-vm-'));
  const server = await startVictoriaProcess(dir, [], null, 60_000);
  const samples = om.filter((l) => l !== '' && !l.startsWith('#')).map((l) => l.replace(/ (\d+(?:\.\d+)?)$/, (_m, t: string) => ` ${Math.round(Number(t) * 1000)}`));
  for (let i = 0; i < samples.length; i += 50_000) {
    const answer = await fetch(`${server.url}/api/v1/import/prometheus`, { method: 'POST', body: `${samples.slice(i, i + 50_000).join('\n')}\n` });
    if (!answer.ok) throw new Error(`VictoriaMetrics refused the import: ${answer.status} ${await answer.text()}`);
  }
  await fetch(`${server.url}/internal/force_flush`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await (await fetch(`${server.url}/api/v1/query?query=${encodeURIComponent(ready)}`)).json();
    if (answer.data?.result?.length > 0) return server;
    if (Date.now() > deadline) throw new Error(`VictoriaMetrics never answered ${ready} after the import`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function startVictoriaProcess(dir: string, extraArgs: string[], ready: string | null, timeoutMs: number): Promise<RunningPrometheus> {
  if (!existsSync(VICTORIA)) throw new Error(`VictoriaMetrics is not installed at ${VICTORIA}: run bash test/engine/install-victoria.sh (install-tools.sh does)`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Imported and scraped samples are searchable at once (the default waits 30 s for late data); no cache between queries.
  const child: ChildProcess = spawn(VICTORIA, [`-storageDataPath=${join(dir, 'vm-data')}`, `-httpListenAddr=127.0.0.1:${port}`, '-retentionPeriod=100y', '-search.latencyOffset=0s', '-search.disableCache', ...extraArgs], { stdio: 'ignore' });
  await waitUntilReady('VictoriaMetrics', child, async () => {
    if (ready === null) return (await fetch(`${url}/health`)).ok;
    const answer = await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(ready)}`)).json();
    return answer.data?.result?.length > 0;
  }, undefined, { pollMs: 250, timeoutMs });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function startPrometheus(dir: string, extraArgs: string[], name: string, ready: string, timeoutMs: number): Promise<RunningPrometheus> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const prometheus: ChildProcess = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, ...extraArgs, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
  await waitUntilReady(name, prometheus, async () => {
    const answer = await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(ready)}`)).json();
    return answer.data?.result?.length > 0;
  }, undefined, { pollMs: 250, timeoutMs });
  return { url, stop: () => prometheus.kill('SIGTERM') };
}
