/**
 * Chat Completions responses (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp, LM Studio, TGI) → events.
 * Not tokens: a role-only delta, an empty content delta, keep-alive comments and the usage-only
 * chunk. Reasoning deltas (`reasoning_content`, `reasoning`) are tokens of kind reasoning.
 * With `n > 1` the server streams several choices, told apart by `index`: only choice 0 is the run's
 * answer (the others are neither its text, its timing nor its end), and the usage's completion
 * tokens, which count every choice, are not taken as the answer's length.
 */
import { JsonBodyDecoder, SseStreamDecoder } from './decoderBase';
import { countOf, durationMsOf, parseJson, record, responseIdOf, stringOf } from './jsonFields';
import type { SseEvent } from './sse';
import { EndpointError, type ServerReported, type ServerTimings, type StreamDecoder, type TimedEvent } from './types';

export function openAiDecoder(contentType: string): StreamDecoder {
  return /application\/json/i.test(contentType) ? new OpenAiJsonBodyDecoder() : new OpenAiStreamDecoder();
}

class OpenAiStreamDecoder extends SseStreamDecoder {
  protected readonly incompleteMessage = 'The stream ended before the answer was complete (no finish reason, no [DONE]).';
  private readonly choices = { others: false };

  protected events(sseEvents: SseEvent[]): TimedEvent[] {
    const out: TimedEvent[] = [];
    for (const { data, t } of sseEvents) {
      if (this.failed) break;
      if (data.trim() === '[DONE]') {
        if (!this.complete) out.push({ kind: 'done', t });
        this.complete = true;
        continue;
      }
      const json = parseJson(data);
      if (json === undefined) {
        out.push(this.fail(t, new EndpointError('malformed_stream', `The stream carried an event that is not JSON: ${data.slice(0, 120)}`)));
        break;
      }
      const fault = streamErrorOf(json);
      if (fault) {
        out.push(this.fail(t, fault));
        break;
      }
      this.complete = pushChunkEvents(json, t, out, this.choices) || this.complete;
    }
    return out;
  }
}

class OpenAiJsonBodyDecoder extends JsonBodyDecoder {
  protected eventsOf(json: unknown, t: number): TimedEvent[] {
    const fault = streamErrorOf(json);
    if (fault) return [{ kind: 'error', t, error: fault }];
    const out: TimedEvent[] = [];
    const seen = { others: false };
    const choice = choiceZero(json, seen);
    const message = record(choice?.message);
    const reasoning = stringOf(message?.reasoning_content) ?? stringOf(message?.reasoning);
    if (reasoning) out.push({ kind: 'reasoning', t, text: reasoning });
    const content = stringOf(message?.content);
    if (content) out.push({ kind: 'token', t, text: content });
    pushUsage(json, t, out, seen.others);
    const responseId = responseIdOf(record(json)?.id);
    out.push({ kind: 'done', t, ...(stringOf(choice?.finish_reason) ? { finishReason: stringOf(choice?.finish_reason)! } : {}), ...(responseId ? { responseId } : {}) });
    return out;
  }
}

/** Appends the events of one chunk; returns true when it carries choice 0's finish reason. */
function pushChunkEvents(json: unknown, t: number, out: TimedEvent[], seen: { others: boolean }): boolean {
  const choice = choiceZero(json, seen);
  const delta = record(choice?.delta);
  const reasoning = stringOf(delta?.reasoning_content) ?? stringOf(delta?.reasoning);
  if (reasoning) out.push({ kind: 'reasoning', t, text: reasoning });
  const content = stringOf(delta?.content);
  if (content) out.push({ kind: 'token', t, text: content });
  pushUsage(json, t, out, seen.others);
  const finishReason = stringOf(choice?.finish_reason);
  if (finishReason) {
    // Every chunk carries the response's id; the finish chunk's is the one recorded.
    const responseId = responseIdOf(record(json)?.id);
    out.push({ kind: 'done', t, finishReason, ...(responseId ? { responseId } : {}) });
    return true;
  }
  return false;
}

/** `severalChoices`: the completion tokens counted every choice, not the recorded one. */
function pushUsage(json: unknown, t: number, out: TimedEvent[], severalChoices: boolean): void {
  const usage = record(record(json)?.usage);
  const server = serverReported(record(json)?.x_sim);
  const timings = llamaTimings(record(json)?.timings);
  if (!usage && !server && !timings) return;
  const inputTokens = countOf(usage?.prompt_tokens);
  const outputTokens = severalChoices ? undefined : countOf(usage?.completion_tokens);
  // OpenAI, vLLM and llama.cpp: usage.prompt_tokens_details.cached_tokens; llama.cpp also timings.cache_n.
  const cachedInputTokens = countOf(record(usage?.prompt_tokens_details)?.cached_tokens) ?? timings?.cachedTokens;
  out.push({
    kind: 'usage',
    t,
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
    ...(cachedInputTokens !== undefined ? { cachedInputTokens } : {}),
    ...(timings ? { timings } : {}),
    ...(server ? { server } : {}),
  });
}

/** llama.cpp's per-request `timings` (on the usage chunk, or on the finish chunk without stream_options). */
function llamaTimings(value: unknown): ServerTimings | undefined {
  const timings = record(value);
  if (!timings) return undefined;
  const fields: ServerTimings = { source: 'llama.cpp timings' };
  const promptMs = durationMsOf(timings.prompt_ms);
  const promptTokens = countOf(timings.prompt_n);
  const predictedMs = durationMsOf(timings.predicted_ms);
  const predictedTokens = countOf(timings.predicted_n);
  const cachedTokens = countOf(timings.cache_n);
  if (promptMs !== undefined) fields.promptMs = promptMs;
  if (promptTokens !== undefined) fields.promptTokens = promptTokens;
  if (predictedMs !== undefined) fields.predictedMs = predictedMs;
  if (predictedTokens !== undefined) fields.predictedTokens = predictedTokens;
  if (cachedTokens !== undefined) fields.cachedTokens = cachedTokens;
  return Object.keys(fields).length > 1 ? fields : undefined;
}

function serverReported(value: unknown): ServerReported | undefined {
  const sim = record(value);
  if (!sim) return undefined;
  const ttftMs = durationMsOf(sim.ttft_ms);
  const e2eMs = durationMsOf(sim.e2e_ms);
  return { ...(ttftMs !== undefined ? { ttftMs } : {}), ...(e2eMs !== undefined ? { e2eMs } : {}) };
}

function streamErrorOf(json: unknown): EndpointError | undefined {
  const error = record(json)?.error;
  if (error === undefined || error === null) return undefined;
  const message = stringOf(record(error)?.message) ?? (typeof error === 'string' ? error : JSON.stringify(error).slice(0, 200));
  const type = `${stringOf(record(error)?.type) ?? ''} ${stringOf(record(error)?.code) ?? ''}`;
  if (/rate|429/i.test(type)) return new EndpointError('rate_limited', `Rate limited mid-stream: ${message}`);
  return new EndpointError('http_5xx', `The server reported an error mid-stream: ${message}`);
}

/** The server's error message in an OpenAI-style error body. */
export function openAiErrorMessage(body: string): string | undefined {
  const json = parseJson(body);
  const error = record(json)?.error;
  return stringOf(record(error)?.message) ?? stringOf(error) ?? stringOf(record(json)?.message) ?? stringOf(record(json)?.detail);
}

/** The choice with index 0 in a chunk or body (a choice without an index is 0); notes when others appear. */
function choiceZero(json: unknown, seen: { others: boolean }): Record<string, unknown> | undefined {
  const choices = record(json)?.choices;
  if (!Array.isArray(choices)) return undefined;
  let zero: Record<string, unknown> | undefined;
  for (const item of choices) {
    const choice = record(item);
    if (!choice) continue;
    if (choice.index === undefined || choice.index === 0) zero ??= choice;
    else seen.others = true;
  }
  return zero;
}
