/** The pure mapping of a run to a span and metric values: odd records, ids, checks. */
import { describe, expect, it } from 'vitest';
import { forgetSecrets, registerSecret } from '../../../src/core/endpoint/secrets';
import { retrievalSpan } from '../../../src/core/telemetry/retrievalSpan';
import { runMetricValues, runSpan } from '../../../src/core/telemetry/runSpans';
import { telemetryRun } from './telemetryFixtures';

describe('runSpan', () => {
  it('keeps a span well-formed for a record with an unreadable time or an absurd duration', () => {
    const bad = runSpan(telemetryRun({ at: 'not a time', run: { streamEndMs: 1e30 } }));
    expect(Number.isFinite(bad.startMs) && Number.isFinite(bad.endMs)).toBe(true);
    expect(bad.endMs).toBeGreaterThanOrEqual(bad.startMs);
    const negative = runSpan(telemetryRun({ run: { streamEndMs: -5 } }));
    expect(negative.endMs - negative.startMs).toBe(0);
  });

  it('derives the same ids from the same stored run, and valid ones from an id that is not a UUID', () => {
    expect(runSpan(telemetryRun()).ids).toEqual(runSpan(telemetryRun()).ids);
    const odd = runSpan(telemetryRun({ id: 'legacy-7' })).ids!;
    expect(odd.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(odd.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(runSpan(telemetryRun({ id: undefined })).ids).toBeUndefined();
  });

  it('says an unscored check without a score value, and bounds a long explanation', () => {
    const span = runSpan(telemetryRun({}, { status: 'unscored', reason: 'x'.repeat(10_000), failed: [] }), { captureContent: true });
    expect(span.events).toHaveLength(1);
    expect(span.events[0]!.attributes).not.toHaveProperty('gen_ai.evaluation.score.value');
    expect(span.events[0]!.attributes['gen_ai.evaluation.score.label']).toBe('unscored');
    expect(String(span.events[0]!.attributes['gen_ai.evaluation.explanation']).length).toBeLessThanOrEqual(4097);
  });

  it('reports no time to first chunk for a response that was not streamed', () => {
    const values = runMetricValues(telemetryRun({ run: { streamed: false } }));
    expect(values.timeToFirstChunkS).toBeNull();
    expect(values.chunkGapsS).toEqual([]);
  });

  it('a failed retrieval step\'s message is scrubbed of secrets, as the chat span\'s is', () => {
    registerSecret('sk-retrieval-secret-123456');
    try {
      const input = telemetryRun({ run: { ok: false, retrievalMs: 12, error: { kind: 'retrieval-http', message: 'the search service answered 401 for key sk-retrieval-secret-123456' } } as never });
      const span = retrievalSpan(input, runSpan(input))!;
      expect(span.ok).toBe(false);
      expect(String(span.attributes['prompt_insight.error.message'])).not.toContain('sk-retrieval-secret-123456');
      expect(String(span.attributes['prompt_insight.error.message'])).toContain('the search service answered 401');
    } finally {
      forgetSecrets();
    }
  });
});
