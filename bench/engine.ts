/**
 * The real engine: `prompt-insight run` against llama-server with the generated model (as the engine
 * tests start it: one thread, one slot) — cold against warm TTFT, the phases the server reports,
 * both rates with their formulas, what its metrics said, and what happens at concurrency 2.
 * Needs the tools (`bash test/e2e/install-tools.sh`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startLlamaServer } from '../test/engine/llamaServer';
import { fmt, median, table } from './stats';

const run = promisify(execFile);
const ms = (value: number | null): string => (value === null ? 'n/a' : `${fmt(value)} ms`);

interface Run {
  ok: boolean;
  ttftMs: number;
  e2eMs: number;
  tpotMs: number | null;
  outputTokens: number;
  cache: string;
  cachedInputTokens: number | null;
  phases: { queueMs: number; prefillMs: number; decodeMs: number } | null;
}

export async function benchEngine(): Promise<string> {
  const server = await startLlamaServer();
  const dir = mkdtempSync(join(tmpdir(), 'pi-bench-engine-'));
  const prompt = join(dir, 'homes.prompty');
  // ~2,650 input tokens, 64 output tokens.
  writeFileSync(prompt, `---\nname: homes\nmodel:\n  api: chat\n  parameters:\n    max_tokens: 64\n---\nsystem:\n${Array.from({ length: 90 }, (_, i) => `- Rule ${i + 1}: a home is a single-family house with its own land, never an apartment, a condo or a townhouse.`).join('\n')}\n\nuser:\nFind homes nearby with at least three bedrooms.\n`);
  const cli = async (...args: string[]) => JSON.parse((await run(process.execPath, [resolve('dist/cli.js'), 'run', prompt, '--endpoint', `${server.url}/v1`, '--model', 'model.gguf', '--json', '--no-store', ...args], { timeout: 600_000, maxBuffer: 64 * 1024 * 1024 })).stdout);
  try {
    // as-is first: the server's one slot keeps the last prompt, so after cold runs of it even the first as-is run is warm.
    const asIs = await cli('--runs', '8', '--cache', 'as-is');
    const cold = await cli('--runs', '8');
    const together = await cli('--runs', '4', '--concurrency', '2');
    const rows: (string | number)[][] = [];
    const describe = (label: string, runs: Run[]) => {
      if (runs.length === 0) return;
      const pick = (f: (r: Run) => number | null, digits = 1): string => {
        const values = runs.map(f).filter((v): v is number => v !== null);
        return values.length ? fmt(median(values), digits) : 'n/a';
      };
      rows.push([
        label,
        runs.length,
        pick((r) => r.ttftMs),
        pick((r) => r.phases?.queueMs ?? null),
        pick((r) => r.phases?.prefillMs ?? null),
        pick((r) => r.e2eMs),
        pick((r) => r.cachedInputTokens, 0),
        pick((r) => (r.tpotMs ? 1000 / r.tpotMs : null)),
        pick((r) => (r.outputTokens / r.e2eMs) * 1000),
      ]);
    };
    describe('--cache cold (default), one at a time', cold.runs);
    describe('--cache as-is: the first run', asIs.runs.slice(0, 1));
    describe('--cache as-is: repeats (warm, summarised apart)', asIs.runs.slice(1).filter((r: Run) => r.cache === 'warm'));
    describe('--cache cold, concurrency 2 on one slot', together.runs);
    const samples = together.server.metrics as { requestsRunning?: number; requestsWaiting?: number; promptTokensPerSec?: number; generationTokensPerSec?: number }[];
    const most = (f: (s: (typeof samples)[number]) => number | undefined) => Math.max(...samples.map(f).filter((v): v is number => v !== undefined));
    const hints = (together.hints as string[]).map((h) => `- ${h}`).join('\n');
    return [
      `### Real engine (${server.build}; one thread, one slot; ~2,650 input tokens, 64 output)`,
      '',
      table(['runs', 'n', 'TTFT p50 ms', 'queue ms', 'prefill ms', 'E2E ms', 'cached tokens', 'decode tok/s (1000/TPOT)', 'out/E2E tok/s'], rows),
      '',
      `Cold summary p50 TTFT ${ms(cold.summary.ttftMs.p50)} over ${cold.summary.ttftMs.n} runs; as-is: summary (cold) ${ms(asIs.summary.ttftMs.p50)} over ${asIs.summary.ttftMs.n}, summaryWarm ${asIs.summaryWarm ? `${ms(asIs.summaryWarm.ttftMs.p50)} over ${asIs.summaryWarm.ttftMs.n}` : 'none'}.`,
      `Server metrics at concurrency 2 (${samples.length} samples of llama-server's /metrics): max running ${most((s) => s.requestsRunning)}, max waiting ${most((s) => s.requestsWaiting)}, its prompt rate ${fmt(most((s) => s.promptTokensPerSec), 0)} tok/s, generation rate ${fmt(most((s) => s.generationTokensPerSec), 1)} tok/s. Hints:`,
      hints,
    ].join('\n');
  } finally {
    await server.stop();
  }
}
