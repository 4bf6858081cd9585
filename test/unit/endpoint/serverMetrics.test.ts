/** Server metrics: Prometheus text from each server mapped to one vocabulary; bad /metrics never stop runs. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MetricsSampler, rawFromPromql, sampleFromRaw, sampleFromText } from '../../../src/core/endpoint/serverMetrics';

// As llama-server b11669 (--metrics) answered during a run.
const LLAMA = `# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed, excluding cached tokens
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 12
# HELP llamacpp:prompt_tokens_seconds Average prompt throughput in tokens/s.
# TYPE llamacpp:prompt_tokens_seconds gauge
llamacpp:prompt_tokens_seconds 185.5
# HELP llamacpp:predicted_tokens_seconds Average generation throughput in tokens/s.
# TYPE llamacpp:predicted_tokens_seconds gauge
llamacpp:predicted_tokens_seconds 48.2
# HELP llamacpp:requests_processing Number of requests processing.
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
# HELP llamacpp:requests_deferred Number of requests deferred.
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 2
`;
// Names from vLLM's and NVIDIA DCGM exporter's documentation.
const VLLM = `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} 4
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="m"} 7
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{model_name="m"} 0.93
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{model_name="m"} 5
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{model_name="m"} 1000
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{model_name="m"} 250
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="0.1"} 3
vllm:time_to_first_token_seconds_bucket{le="+Inf"} 4
vllm:time_to_first_token_seconds_sum 0.9
vllm:time_to_first_token_seconds_count 4
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0"} 87
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0"} 30000
`;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

async function metricsServer(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

describe('server metrics', () => {
  it('maps llama.cpp, vLLM and DCGM names to one vocabulary and keeps the raw values', () => {
    expect(sampleFromText(LLAMA, 5)).toMatchObject({ t: 5, requestsRunning: 1, requestsWaiting: 2, promptTokensPerSec: 185.5, generationTokensPerSec: 48.2, raw: { 'llamacpp:prompt_tokens_total': 12 } });
    const vllm = sampleFromText(VLLM, 0);
    expect(vllm).toMatchObject({ requestsRunning: 4, requestsWaiting: 7, kvCacheUsage: 0.93, preemptions: 5, prefixCacheHitRate: 0.25, gpuUtil: 0.87, gpuMemoryUsedBytes: 30000 * 1024 * 1024 });
    expect(sampleFromText('this is { not prometheus', 0).raw).toEqual({});
  });

  it('two GPUs: utilisation is their mean (80% and 40% are 60% busy, not 120%), memory used their sum — from /metrics text and from PromQL', () => {
    const text = ['# TYPE DCGM_FI_DEV_GPU_UTIL gauge', 'DCGM_FI_DEV_GPU_UTIL{gpu="0"} 80', 'DCGM_FI_DEV_GPU_UTIL{gpu="1"} 40', '# TYPE DCGM_FI_DEV_FB_USED gauge', 'DCGM_FI_DEV_FB_USED{gpu="0"} 1000', 'DCGM_FI_DEV_FB_USED{gpu="1"} 3000', ''].join('\n');
    const fromText = sampleFromText(text, 0);
    expect(fromText.gpuUtil).toBeCloseTo(0.6, 10);
    expect(fromText.gpuMemoryUsedBytes).toBe(4000 * 1024 * 1024);
    const series = (name: string, gpu: string, value: number) => ({ metric: { __name__: name, gpu }, value: [0, String(value)] });
    const promql = rawFromPromql({ status: 'success', data: { resultType: 'vector', result: [series('DCGM_FI_DEV_GPU_UTIL', '0', 80), series('DCGM_FI_DEV_GPU_UTIL', '1', 40), series('DCGM_FI_DEV_FB_USED', '0', 1000), series('DCGM_FI_DEV_FB_USED', '1', 3000)] } })!;
    const fromPromql = sampleFromRaw(promql.raw, 0);
    expect(fromPromql.gpuUtil).toBeCloseTo(0.6, 10);
    expect(fromPromql.gpuMemoryUsedBytes).toBe(4000 * 1024 * 1024);
  });

  it('samples a live /metrics while work goes on, and records each failed sample as a gap', async () => {
    let n = 0;
    const big = Buffer.from(`# TYPE big gauge\n${'x'.repeat(5 * 1024 * 1024)}`);
    const url = await metricsServer((req, res) => {
      n++;
      if (n === 2) return void res.writeHead(404).end('no');
      if (n === 3) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('<html>not metrics</html>');
      if (n === 4) return; // never answers
      if (n === 5) return void res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(big.length) }).end(big);
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(LLAMA);
    });
    const start = performance.now();
    const sampler = new MetricsSampler(url, () => performance.now() - start, 250);
    sampler.start();
    // Until every fault has been served and two good scrapes are in: counted, not timed.
    await expect.poll(() => n >= 6 && sampler.samples.length >= 2, { timeout: 60_000, interval: 50 }).toBe(true);
    await sampler.stop();
    expect(sampler.samples.length).toBeGreaterThanOrEqual(2);
    expect(sampler.samples[0]).toMatchObject({ requestsRunning: 1 });
    // The four faults, in order; on a busy machine a good scrape may also miss its 250 ms and be a gap of its own.
    const faults = ['HTTP 404', 'not Prometheus text (no metric could be read)', 'no answer within 250 ms', `more than ${4 * 1024 * 1024} bytes`];
    const seen = sampler.gaps.map((g) => g.error);
    let next = 0;
    for (const error of seen) if (error === faults[next]) next++;
    expect(next, `gaps: ${seen.join(' | ')}`).toBe(faults.length);
    expect(seen.filter((e) => e !== 'no answer within 250 ms')).toEqual(faults.filter((e) => e !== 'no answer within 250 ms'));
    // Each sample and gap carries the sampler's clock, in the order taken.
    const times = [...sampler.samples, ...sampler.gaps].map((s) => s.t).sort((a, b) => a - b);
    expect(times.at(-1)!).toBeGreaterThan(times[0]!);
  });

  it('an endpoint with no metrics server at all: every sample is a gap, nothing throws', async () => {
    const sampler = new MetricsSampler('http://127.0.0.1:9/metrics', () => 0, 250);
    sampler.start();
    await new Promise((r) => setTimeout(r, 300));
    await sampler.stop();
    expect(sampler.samples).toEqual([]);
    expect(sampler.gaps.length).toBeGreaterThanOrEqual(1);
  });
});
