/**
 * Anthropic Messages streams → events. Event types: message_start (input usage), content_block_*
 * (text_delta → answer token, thinking_delta → reasoning token), message_delta (stop reason,
 * output usage), message_stop, ping (ignored), error (overloaded, rate limit…).
 */
import { countOf, parseJson, record, responseIdOf, stringOf } from './jsonFields';
import { JsonBodyDecoder, SseStreamDecoder } from './decoderBase';
import type { SseEvent } from './sse';
import { EndpointError, type StreamDecoder, type TimedEvent } from './types';

export function anthropicDecoder(contentType: string): StreamDecoder {
  return /application\/json/i.test(contentType) ? new AnthropicJsonDecoder() : new AnthropicStreamDecoder();
}

class AnthropicStreamDecoder extends SseStreamDecoder {
  protected readonly incompleteMessage = 'The stream ended before message_stop; the answer is incomplete.';
  private inputTokens: number | undefined;
  private cachedInputTokens: number | undefined;
  private stopReason: string | undefined;
  private messageId: string | undefined;

  protected events(sseEvents: SseEvent[]): TimedEvent[] {
    const out: TimedEvent[] = [];
    for (const { event, data, t } of sseEvents) {
      if (this.failed || this.complete) break;
      if (event === 'ping') continue;
      const json = record(parseJson(data));
      if (!json) {
        out.push(this.fail(t, new EndpointError('malformed_stream', `The stream carried an event that is not a JSON object: ${data.slice(0, 120)}`)));
        break;
      }
      const type = stringOf(json.type) ?? event;
      if (type === 'error') {
        out.push(this.fail(t, anthropicError(record(json.error))));
      } else if (type === 'message_start') {
        this.messageId = responseIdOf(record(json.message)?.id);
        const startUsage = record(record(json.message)?.usage);
        this.inputTokens = countOf(startUsage?.input_tokens);
        // Anthropic counts cache reads (and writes) apart from input_tokens.
        this.cachedInputTokens = countOf(startUsage?.cache_read_input_tokens);
        const created = countOf(startUsage?.cache_creation_input_tokens) ?? 0;
        if (this.inputTokens !== undefined) this.inputTokens = countOf(this.inputTokens + (this.cachedInputTokens ?? 0) + created);
      } else if (type === 'content_block_delta') {
        const delta = record(json.delta);
        const kind = stringOf(delta?.type);
        if (kind === 'thinking_delta' && stringOf(delta?.thinking)) out.push({ kind: 'reasoning', t, text: stringOf(delta?.thinking)! });
        else if (kind === 'text_delta' && stringOf(delta?.text)) out.push({ kind: 'token', t, text: stringOf(delta?.text)! });
        else if (kind === 'input_json_delta' && stringOf(delta?.partial_json)) out.push({ kind: 'token', t, text: stringOf(delta?.partial_json)! });
      } else if (type === 'message_delta') {
        this.stopReason = stringOf(record(json.delta)?.stop_reason) ?? this.stopReason;
        const outputTokens = countOf(record(json.usage)?.output_tokens);
        out.push({ kind: 'usage', t, ...(this.inputTokens !== undefined ? { inputTokens: this.inputTokens } : {}), ...(outputTokens !== undefined ? { outputTokens } : {}), ...(this.cachedInputTokens !== undefined ? { cachedInputTokens: this.cachedInputTokens } : {}) });
      } else if (type === 'message_stop') {
        this.complete = true;
        out.push({ kind: 'done', t, ...(this.stopReason ? { finishReason: this.stopReason } : {}), ...(this.messageId ? { responseId: this.messageId } : {}) });
      }
    }
    return out;
  }
}

class AnthropicJsonDecoder extends JsonBodyDecoder {
  protected eventsOf(value: unknown, t: number): TimedEvent[] {
    const json = record(value) ?? {};
    if (json.type === 'error') return [{ kind: 'error', t, error: anthropicError(record(json.error)) }];
    const out: TimedEvent[] = [];
    const blocks = Array.isArray(json.content) ? json.content : [];
    for (const block of blocks.map(record)) {
      if (block?.type === 'thinking' && stringOf(block.thinking)) out.push({ kind: 'reasoning', t, text: stringOf(block.thinking)! });
      if (block?.type === 'text' && stringOf(block.text)) out.push({ kind: 'token', t, text: stringOf(block.text)! });
    }
    const usage = record(json.usage);
    const inputTokens = countOf(usage?.input_tokens);
    const outputTokens = countOf(usage?.output_tokens);
    out.push({ kind: 'usage', t, ...(inputTokens !== undefined ? { inputTokens } : {}), ...(outputTokens !== undefined ? { outputTokens } : {}) });
    const stop = stringOf(json.stop_reason);
    const responseId = responseIdOf(json.id);
    out.push({ kind: 'done', t, ...(stop ? { finishReason: stop } : {}), ...(responseId ? { responseId } : {}) });
    return out;
  }
}

function anthropicError(error: Record<string, unknown> | undefined): EndpointError {
  const type = stringOf(error?.type) ?? 'error';
  const message = stringOf(error?.message) ?? type;
  if (type === 'rate_limit_error') return new EndpointError('rate_limited', `Rate limited: ${message}`);
  if (type === 'overloaded_error' || type === 'api_error') return new EndpointError('http_5xx', `The server reported ${type}: ${message}`);
  return new EndpointError('http_4xx', `The server rejected the request (${type}): ${message}`);
}

export function anthropicErrorMessage(body: string): string | undefined {
  return stringOf(record(record(parseJson(body))?.error)?.message);
}
