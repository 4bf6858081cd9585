/**
 * The retrieval step of a RAG run (issue 25) as its own span beside the inference span: same trace,
 * ending where the model call starts, so a trace view shows the chain retrieval → chat. Plain data
 * like runSpans.ts; otelExport.ts hands it to the SDK.
 */
import { createHash } from 'node:crypto';
import { scrubSecrets } from '../endpoint/secrets';
import { ATTR, PI_ATTR } from './genaiConventions';
import type { Attributes, RunSpan } from './runSpans';
import type { TelemetryRun } from './runSpans';

export const RETRIEVAL_SPAN_NAME = 'retrieval';
export const RETRIEVAL_ATTR = {
  /** Passages the step put into the prompt. */
  passages: 'prompt_insight.retrieval.passages',
} as const;

/** The retrieval span of a run that had a retrieval step; undefined otherwise. `chat` is the run's inference span. */
export function retrievalSpan(input: TelemetryRun, chat: RunSpan): RunSpan | undefined {
  const record = input.run.run;
  if (typeof record.retrievalMs !== 'number' || !Number.isFinite(record.retrievalMs) || record.retrievalMs < 0) return undefined;
  const endMs = chat.startMs;
  const failed = record.error?.kind.startsWith('retrieval-') === true;
  const attributes: Attributes = {
    [ATTR.promptName]: input.run.prompt,
    ...(chat.attributes[ATTR.promptVersion] !== undefined ? { [ATTR.promptVersion]: chat.attributes[ATTR.promptVersion]! } : {}),
    [PI_ATTR.file]: input.run.file,
    [RETRIEVAL_ATTR.passages]: record.retrievedPassages ?? 0,
  };
  if (input.run.id) attributes[PI_ATTR.runId] = input.run.id;
  if (failed) {
    attributes[ATTR.errorType] = record.error!.kind;
    // Scrubbed as the chat span's message is: a render error can quote a variable's text.
    attributes[PI_ATTR.errorMessage] = scrubSecrets(record.error!.message).slice(0, 4096);
  }
  return {
    name: RETRIEVAL_SPAN_NAME,
    startMs: endMs - Math.min(record.retrievalMs, endMs),
    endMs,
    ok: !failed,
    // In the inference span's trace, with a span id of its own derived from it (re-exports give the same span).
    ...(chat.ids ? { ids: { traceId: chat.ids.traceId, spanId: createHash('sha256').update(`retrieval:${chat.ids.spanId}`).digest('hex').slice(0, 16) } } : {}),
    attributes,
    events: [],
  };
}
