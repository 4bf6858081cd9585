/**
 * Anthropic Messages streams → events. Event types: message_start (input usage), content_block_*
 * (text_delta → answer token, thinking_delta → reasoning token), message_delta (stop reason,
 * output usage), message_stop, ping (ignored), error (overloaded, rate limit…).
 */
import { numberOf, record, stringOf } from './openaiDecoder';
import { SseParser } from './sse';
import { EndpointError, type StreamDecoder, type TimedEvent } from './types';

export function anthropicDecoder(contentType: string): StreamDecoder {
  return /application\/json/i.test(contentType) ? new AnthropicJsonDecoder() : new AnthropicStreamDecoder();
}

class AnthropicStreamDecoder implements StreamDecoder {
  private readonly sse = new SseParser();
  private inputTokens: number | undefined;
  private stopReason: string | undefined;
  private complete = false;
  private failed = false;

  feed(chunk: Uint8Array, t: number): TimedEvent[] {
    return this.events(this.sse.feed(chunk, t));
  }

  end(t: number): TimedEvent[] {
    const events = this.events(this.sse.end(t));
    if (!this.complete && !this.failed) {
      events.push({ kind: 'error', t, error: new EndpointError('connection_reset', 'The stream ended before message_stop; the answer is incomplete.') });
    }
    return events;
  }

  private events(sseEvents: { event: string; data: string; t: number }[]): TimedEvent[] {
    const out: TimedEvent[] = [];
    for (const { event, data, t } of sseEvents) {
      if (this.failed || this.complete) break;
      if (event === 'ping') continue;
      let json: Record<string, unknown> | undefined;
      try {
        json = record(JSON.parse(data));
      } catch {
        json = undefined;
      }
      if (!json) {
        this.failed = true;
        out.push({ kind: 'error', t, error: new EndpointError('malformed_stream', `The stream carried an event that is not a JSON object: ${data.slice(0, 120)}`) });
        break;
      }
      const type = stringOf(json.type) ?? event;
      if (type === 'error') {
        this.failed = true;
        out.push({ kind: 'error', t, error: anthropicError(record(json.error)) });
      } else if (type === 'message_start') {
        this.inputTokens = numberOf(record(record(json.message)?.usage)?.input_tokens);
      } else if (type === 'content_block_delta') {
        const delta = record(json.delta);
        const kind = stringOf(delta?.type);
        if (kind === 'thinking_delta' && stringOf(delta?.thinking)) out.push({ kind: 'reasoning', t, text: stringOf(delta?.thinking)! });
        else if (kind === 'text_delta' && stringOf(delta?.text)) out.push({ kind: 'token', t, text: stringOf(delta?.text)! });
        else if (kind === 'input_json_delta' && stringOf(delta?.partial_json)) out.push({ kind: 'token', t, text: stringOf(delta?.partial_json)! });
      } else if (type === 'message_delta') {
        this.stopReason = stringOf(record(json.delta)?.stop_reason) ?? this.stopReason;
        const outputTokens = numberOf(record(json.usage)?.output_tokens);
        out.push({ kind: 'usage', t, ...(this.inputTokens !== undefined ? { inputTokens: this.inputTokens } : {}), ...(outputTokens !== undefined ? { outputTokens } : {}) });
      } else if (type === 'message_stop') {
        this.complete = true;
        out.push({ kind: 'done', t, ...(this.stopReason ? { finishReason: this.stopReason } : {}) });
      }
    }
    return out;
  }
}

class AnthropicJsonDecoder implements StreamDecoder {
  private readonly chunks: Uint8Array[] = [];

  feed(chunk: Uint8Array): TimedEvent[] {
    this.chunks.push(chunk);
    return [];
  }

  end(t: number): TimedEvent[] {
    const text = Buffer.concat(this.chunks).toString('utf8');
    let json: Record<string, unknown> | undefined;
    try {
      json = record(JSON.parse(text));
    } catch {
      json = undefined;
    }
    if (!json) return [{ kind: 'error', t, error: new EndpointError('malformed_stream', `The answer is neither an event stream nor valid JSON: ${text.slice(0, 120)}`) }];
    if (json.type === 'error') return [{ kind: 'error', t, error: anthropicError(record(json.error)) }];
    const out: TimedEvent[] = [];
    const blocks = Array.isArray(json.content) ? json.content : [];
    for (const block of blocks.map(record)) {
      if (block?.type === 'thinking' && stringOf(block.thinking)) out.push({ kind: 'reasoning', t, text: stringOf(block.thinking)! });
      if (block?.type === 'text' && stringOf(block.text)) out.push({ kind: 'token', t, text: stringOf(block.text)! });
    }
    const usage = record(json.usage);
    const inputTokens = numberOf(usage?.input_tokens);
    const outputTokens = numberOf(usage?.output_tokens);
    out.push({ kind: 'usage', t, ...(inputTokens !== undefined ? { inputTokens } : {}), ...(outputTokens !== undefined ? { outputTokens } : {}) });
    const stop = stringOf(json.stop_reason);
    out.push({ kind: 'done', t, ...(stop ? { finishReason: stop } : {}) });
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
  try {
    const json = record(JSON.parse(body));
    return stringOf(record(json?.error)?.message);
  } catch {
    return undefined;
  }
}
