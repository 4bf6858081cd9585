/** The run document's end: cold apart from warm, both rates with formulas, phases, the server's metrics over time, hints. */
import { describe, expect, it } from 'vitest';
import { runReportMarkdown } from '../../../src/core/metrics/runReport';
import type { RunRecord } from '../../../src/core/metrics/runRecord';
import { summarizeRuns, summarizeWarmRuns } from '../../../src/core/metrics/summary';

const run = (ttftMs: number, cache: RunRecord['cache'], queueMs: number, prefillMs: number): RunRecord => ({
  ok: true, status: 200, error: null, ttftMs, firstAnswerMs: ttftMs, e2eMs: ttftMs + 1000, streamEndMs: ttftMs + 1001, outputTokens: 41, outputTokensSource: 'usage',
  inputTokens: 2650, inputTokensSource: 'usage', tpotMs: 25, itlMs: [], finishReason: 'length', streamed: true, retries: 0,
  cachedInputTokens: cache === 'warm' ? 2622 : 0, cache, phases: { queueMs, prefillMs, decodeMs: 1000, source: 'llama.cpp timings' },
});

describe('run report', () => {
  it('keeps warm runs apart, names both rates, shows phases, the server over time and the hints', () => {
    const records = [run(5900, 'cold', 50, 5850), run(12900, 'cold', 7150, 5750), run(12800, 'cold', 7050, 5750), run(29, 'warm', 6, 23)];
    const markdown = runReportMarkdown({
      records, summary: summarizeRuns(records), summaryWarm: summarizeWarmRuns(records), serverKind: 'llama.cpp', fit: undefined, concurrency: 2, simulated: false,
      startedAt: [0, 10, 6000, 19_000],
      serverMetrics: { samples: Array.from({ length: 40 }, (_, i) => ({ t: i * 500, requestsRunning: 1, requestsWaiting: i % 2, raw: {} })), gaps: [{ t: 3, error: 'HTTP 404' }] },
    });
    expect(markdown).toContain("Prompt cache: 3 runs processed the whole prompt afresh; 1 run reused part of the prompt from the server's cache (faster: kept out of the figures, shown apart). Server: llama.cpp.");
    expect(markdown).toContain('### Warm runs (1,');
    expect(markdown).toContain('| decode tok/s | 3 | 40.0 |');
    expect(markdown).toContain('decode = 1000 / TPOT');
    expect(markdown).toMatch(/llama\.cpp timings; 3 runs, medians\)\n\nTTFT = queue \+ transfer 7\.05 s \+ prefill 5\.75 s · then decode 1\.00 s/);
    expect(markdown.match(/^\| \d+\.\d s \|/gm)!.length).toBeLessThanOrEqual(17); // 40 samples thinned to ~16 rows
    expect(markdown).toContain('| 19.5 s |'); // the last sample is always shown
    // TTFT on the metrics' clock: run 1's first token at 5.9 s, run 2's at 12.91 s, run 3's at 18.8 s, run 4's at 19.03 s.
    expect(markdown).toMatch(/^\| 6\.0 s \|.*\| 1: 5\.90 s \|$/m);
    expect(markdown).toMatch(/^\| 13\.5 s \|.*\| 2: 12\.90 s \|$/m);
    expect(markdown).toMatch(/^\| 19\.5 s \|.*\| 3: 12\.80 s, 4: 29 ms \|$/m);
    expect(markdown).toContain('1 sample missing: HTTP 404.');
    expect(markdown).toContain('Queue-bound');
    expect(markdown).toContain('served from the server\'s prefix cache (warm)');
  });
});
