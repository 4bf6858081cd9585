/** The pure mapping of a run to a span and metric values: odd records, ids, checks. */
import { describe, expect, it } from 'vitest';
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
});
