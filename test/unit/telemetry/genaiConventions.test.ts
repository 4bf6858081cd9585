/** Our table of GenAI names against @opentelemetry/semantic-conventions' incubating constants, and the opt-in switch. */
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { describe, expect, it } from 'vitest';
import { ATTR, EVENT_EVALUATION_RESULT, metricNames, prometheusHistogramNames, semconvMode } from '../../../src/core/telemetry/genaiConventions';
import { promptVersion } from '../../../src/core/telemetry/runSpans';
import { storedRun } from './telemetryFixtures';

describe('GenAI convention names', () => {
  it('every attribute, event and v1.41.1 metric name we write is the semantic-conventions package\'s own', () => {
    const pairs: [string, string][] = [
      [ATTR.operationName, semconv.ATTR_GEN_AI_OPERATION_NAME],
      [ATTR.providerName, semconv.ATTR_GEN_AI_PROVIDER_NAME],
      [ATTR.requestModel, semconv.ATTR_GEN_AI_REQUEST_MODEL],
      [ATTR.responseModel, semconv.ATTR_GEN_AI_RESPONSE_MODEL],
      [ATTR.responseId, semconv.ATTR_GEN_AI_RESPONSE_ID],
      [ATTR.finishReasons, semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS],
      [ATTR.inputTokens, semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS],
      [ATTR.outputTokens, semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS],
      [ATTR.cacheReadInputTokens, semconv.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS],
      [ATTR.timeToFirstChunk, semconv.ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK],
      [ATTR.promptName, semconv.ATTR_GEN_AI_PROMPT_NAME],
      [ATTR.inputMessages, semconv.ATTR_GEN_AI_INPUT_MESSAGES],
      [ATTR.outputMessages, semconv.ATTR_GEN_AI_OUTPUT_MESSAGES],
      [ATTR.tokenType, semconv.ATTR_GEN_AI_TOKEN_TYPE],
      [ATTR.errorType, semconv.ATTR_ERROR_TYPE],
      [ATTR.serverAddress, semconv.ATTR_SERVER_ADDRESS],
      [ATTR.serverPort, semconv.ATTR_SERVER_PORT],
      [ATTR.evaluationName, semconv.ATTR_GEN_AI_EVALUATION_NAME],
      [ATTR.evaluationScoreValue, semconv.ATTR_GEN_AI_EVALUATION_SCORE_VALUE],
      [ATTR.evaluationScoreLabel, semconv.ATTR_GEN_AI_EVALUATION_SCORE_LABEL],
      [ATTR.evaluationExplanation, semconv.ATTR_GEN_AI_EVALUATION_EXPLANATION],
      [EVENT_EVALUATION_RESULT, semconv.EVENT_GEN_AI_EVALUATION_RESULT],
    ];
    for (const [ours, theirs] of pairs) expect(ours).toBe(theirs);
    const names = metricNames('v1.41.1');
    expect([names.duration, names.timeToFirstChunk, names.timePerOutputChunk, names.tokenUsage]).toEqual([
      semconv.METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
      semconv.METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK,
      semconv.METRIC_GEN_AI_CLIENT_OPERATION_TIME_PER_OUTPUT_CHUNK,
      semconv.METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
    ]);
  });

  it('OTEL_SEMCONV_STABILITY_OPT_IN picks the newer names only when it lists gen_ai_latest_experimental', () => {
    expect(semconvMode({})).toBe('v1.41.1');
    expect(semconvMode({ OTEL_SEMCONV_STABILITY_OPT_IN: 'http' })).toBe('v1.41.1');
    expect(semconvMode({ OTEL_SEMCONV_STABILITY_OPT_IN: 'http, gen_ai_latest_experimental' })).toBe('latest_experimental');
    expect(metricNames('latest_experimental').duration).toBe('gen_ai.client.inference.duration');
  });

  it('Prometheus names: the SDK exporter\'s first, the Collector\'s (unit suffix) second', () => {
    expect(prometheusHistogramNames('gen_ai.client.operation.duration', 's')).toEqual(['gen_ai_client_operation_duration', 'gen_ai_client_operation_duration_seconds']);
    expect(prometheusHistogramNames('gen_ai.client.token.usage', '{token}')).toEqual(['gen_ai_client_token_usage']);
  });

  it('gen_ai.prompt.version: the commit when the run came from one, else the content hash', () => {
    const run = storedRun();
    expect(promptVersion({ key: run.key, revision: 'A1B2C3D' })).toBe('a1b2c3d');
    expect(promptVersion({ key: run.key, revision: 'working' })).toBe(`sha256:${run.key.promptHash.slice(0, 16)}`);
    expect(promptVersion({ key: run.key })).toMatch(/^sha256:[0-9a-f]{16}$/);
  });
});
