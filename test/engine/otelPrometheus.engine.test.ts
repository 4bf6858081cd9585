/**
 * Exported runs' GenAI client histograms, served by the OpenTelemetry SDK's Prometheus exporter and scraped
 * by a real Prometheus (Debian's; its OTLP ingestion is disabled by the packager, so scraping is the way in).
 * PromQL counts and percentiles per prompt version must match the runs exported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATION_BUCKETS_S, prometheusHistogramNames, prometheusLabel } from '../../src/core/telemetry/genaiConventions';
import { servePrometheusMetrics, type PrometheusEndpoint } from '../../src/core/telemetry/otelExport';
import type { TelemetryRun } from '../../src/core/telemetry/runSpans';
import { freePort } from '../fixtures/localServers';
import { startScrapingPrometheus, type RunningPrometheus } from './prometheusServer';
import { telemetryRun } from '../unit/telemetry/telemetryFixtures';

const SEED = 20261204;
const V1 = '1111111aaaaaaa2222222bbbbbbb3333333ccccc';
const V2 = '4444444ddddddd5555555eeeeeee6666666fffff';

/** mulberry32: the runs' TTFTs are the same on every machine. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function runs(revision: string, n: number, ttftRange: [number, number], failEvery: number, random: () => number): TelemetryRun[] {
  return Array.from({ length: n }, (_, i) => {
    const ttftMs = Math.round(ttftRange[0] + random() * (ttftRange[1] - ttftRange[0]));
    const failed = failEvery > 0 && i % failEvery === failEvery - 1;
    return telemetryRun({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      revision,
      run: failed
        ? { ok: false, status: 500, error: { kind: 'http_5xx', message: 'boom' }, ttftMs: null, e2eMs: null, streamEndMs: 90, outputTokens: null, itlMs: [], finishReason: null }
        : { ttftMs, e2eMs: ttftMs + 600, streamEndMs: ttftMs + 610, itlMs: [20, 20] },
    });
  });
}

/** Prometheus' histogram_quantile: linear interpolation inside the bucket that holds the rank. */
function expectedQuantile(q: number, values: number[], bounds: readonly number[]): number {
  const counts = bounds.map((b) => values.filter((v) => v <= b).length);
  const rank = q * values.length;
  const i = counts.findIndex((c) => c >= rank);
  const lower = i === 0 ? 0 : bounds[i - 1]!;
  const below = i === 0 ? 0 : counts[i - 1]!;
  return lower + (bounds[i]! - lower) * ((rank - below) / (counts[i]! - below));
}

let prometheus: RunningPrometheus | undefined;
let prometheusUrl: string;
let endpoint: PrometheusEndpoint;
const random = seeded(SEED);
const v1 = runs(V1, 120, [100, 1200], 0, random);
const v2 = runs(V2, 80, [300, 2500], 10, random);

async function query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const answer = await (await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`)).json();
  if (answer.status !== 'success') throw new Error(`PromQL ${promql}: ${JSON.stringify(answer)}`);
  return answer.data.result;
}

const [TTFC] = prometheusHistogramNames('gen_ai.client.operation.time_to_first_chunk', 's');
const [DURATION] = prometheusHistogramNames('gen_ai.client.operation.duration', 's');
const VERSION = prometheusLabel('gen_ai.prompt.version');

beforeAll(async () => {
  const metricsPort = await freePort();
  endpoint = await servePrometheusMetrics([...v1, ...v2], { port: metricsPort });
  prometheus = await startScrapingPrometheus('prompt-insight', `127.0.0.1:${metricsPort}`, `${DURATION}_count`);
  prometheusUrl = prometheus.url;
}, 120_000);

afterAll(async () => {
  prometheus?.stop();
  await endpoint?.close();
});

describe('GenAI client histograms scraped by a real Prometheus', () => {
  it(`counts per prompt version and error type match the runs exported (seed ${SEED})`, async () => {
    const counts = await query(`sum by (${VERSION}) (${DURATION}_count{job="prompt-insight"})`);
    expect(Object.fromEntries(counts.map((r) => [r.metric[VERSION], Number(r.value[1])]))).toEqual({ [V1]: 120, [V2]: 80 });
    const errors = await query(`sum by (${VERSION}, error_type) (${DURATION}_count{error_type!=""})`);
    expect(errors.map((r) => [r.metric[VERSION], r.metric.error_type, Number(r.value[1])])).toEqual([[V2, 'http_5xx', 8]]);
  });

  it(`TTFT p50/p90/p99 per version from histogram_quantile match the exported runs' values in the conventions' buckets (seed ${SEED})`, async () => {
    for (const [version, set] of [[V1, v1], [V2, v2]] as const) {
      const ttfts = set.filter((r) => r.run.run.ok).map((r) => r.run.run.ttftMs! / 1000);
      for (const q of [0.5, 0.9, 0.99]) {
        const [answer] = await query(`histogram_quantile(${q}, sum by (le) (${TTFC}_bucket{${VERSION}="${version}"}))`);
        expect(Number(answer!.value[1]), `p${q * 100} of ${version.slice(0, 7)}`).toBeCloseTo(expectedQuantile(q, ttfts, DURATION_BUCKETS_S), 6);
      }
    }
  });

  it('runs recorded later show up at the next scrape', async () => {
    endpoint.record(runs(V2, 20, [300, 400], 0, random));
    await expect.poll(async () => Number((await query(`sum(${DURATION}_count{${VERSION}="${V2}"})`))[0]?.value[1]), { timeout: 20_000, interval: 250 }).toBe(100);
  });
});
