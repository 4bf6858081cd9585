/** How the simulated endpoint behaves: its timing, answer length, faults, slots and scenario (CLI flags, the editor's bundled simulator). */
import type { SimScenario } from './scenario';

export const SIM_FAULTS = ['none', '429', '500', 'reset', 'stall', 'malformed', 'non-streaming'] as const;
export type SimFault = (typeof SIM_FAULTS)[number];

export interface SimOptions {
  port: number;
  ttftBaseMs: number;
  prefillMsPerInputToken: number;
  decodeMsPerToken: number;
  /** Uniform jitter, ± this many ms, on TTFT and on every decode interval. */
  jitterMs: number;
  tokensPerChunk: number;
  reasoningTokens: number;
  /** Answer length when the request sets no max_tokens and no scenario answer applies. */
  outputTokens: number;
  fault: SimFault;
  /** Share of requests that get the fault (0..1). */
  faultRate: number;
  seed: number;
  scenario?: SimScenario;
  /**
   * Requests served at once, like an inference server's slots (llama-server --parallel, a batch
   * size); 0 = unlimited. A request beyond them waits its turn in arrival order, and its TTFT
   * includes the wait — so load tests see the queueing a real server shows.
   */
  slots: number;
  /**
   * Opt-in: serve GET /metrics with vLLM's prefix-cache counters (`vllm:prefix_cache_queries_total`,
   * `vllm:prefix_cache_hits_total`, in prompt tokens), each request counting its input tokens as
   * queries and this share of them as hits — so a load test's hit rate has a known truth. Without
   * it there is no /metrics, as before.
   */
  prefixCacheHitRate?: number;
}

export const DEFAULT_SIM_OPTIONS: SimOptions = {
  port: 0,
  ttftBaseMs: 180,
  prefillMsPerInputToken: 0.08,
  decodeMsPerToken: 18,
  jitterMs: 4,
  tokensPerChunk: 1,
  reasoningTokens: 0,
  outputTokens: 60,
  fault: 'none',
  faultRate: 1,
  seed: 1,
  slots: 0,
};
