/**
 * A window's kept values are a uniform sample of its successful requests' values: the reservoir counts what
 * it was offered, not every request (errors were never offered; counting them kept later values too rarely).
 */
import { describe, expect, it } from 'vitest';
import { SpanWindows } from '../../../src/core/baseline/spanWindows';
import type { ImportedSpan } from '../../../src/core/telemetry/importOtlpSpans';

const T0 = Date.parse('2026-12-01T10:00:00Z');

describe('watch windows: the sample of each window', () => {
  it('40,000 spans in one hour, every other one failed, 5,000 kept: the kept TPOT median is the middle of the hour', () => {
    const windows = new SpanWindows(new Set(['greet']), 3_600_000, 5_000, T0 + 7_200_000);
    for (let i = 0; i < 40_000; i++) {
      const startMs = T0 + i * 80;
      const failed = i % 2 === 1;
      const span: ImportedSpan = { promptName: 'greet', promptVersion: 'v1', source: 'otel-genai', versionFrom: 'span', startMs, endMs: startMs + 50, e2eMs: 50, ttftMs: 10, tpotMs: i, inputTokens: 10, outputTokens: 5, cacheReadTokens: null, errorType: failed ? '500' : null };
      windows.span(span);
    }
    const [median] = windows.companions()['tpot.p50'];
    // Successful values run 0 … 39,998: a uniform sample's median is about 20,000 (a biased one gave about 14,000).
    expect(median!.value).toBeGreaterThan(18_500);
    expect(median!.value).toBeLessThan(21_500);
  });
});
