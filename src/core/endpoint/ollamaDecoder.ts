/**
 * Ollama's native chat API (`/api/chat`) → events. The stream is newline-delimited JSON: chunks with
 * `message.content` (answer) and `message.thinking` (reasoning), then one object with `done: true`,
 * the stop reason and the server's own durations in nanoseconds (`prompt_eval_duration`: prefill,
 * `eval_duration`: decode, `load_duration`: loading the model). Errors arrive as `{"error": "…"}`.
 * The native API is used for Ollama because its OpenAI-compatible `/v1` drops those durations.
 */
import { countOf, durationMsOf, parseJson, record, stringOf } from './jsonFields';
import { NdjsonParser } from './ndjson';
import { SseLimitError } from './sse';
import { JsonBodyDecoder } from './decoderBase';
import { EndpointError, type ServerTimings, type StreamDecoder, type TimedEvent } from './types';

export function ollamaDecoder(contentType: string): StreamDecoder {
  return /application\/json/i.test(contentType) ? new OllamaJsonDecoder() : new OllamaStreamDecoder();
}

const NS_PER_MS = 1e6;

/**
 * The durations and counts on Ollama's final object, as the timings every provider reports. Each is
 * checked as it is read (durationMsOf, countOf): a duration of 1e300 ns or a count of −1 is absent,
 * not a value the store would refuse to read back.
 */
function ollamaTimings(json: Record<string, unknown>): ServerTimings | undefined {
  const promptMs = durationMsOf(json.prompt_eval_duration, NS_PER_MS);
  if (promptMs === undefined) return undefined;
  const predictedMs = durationMsOf(json.eval_duration, NS_PER_MS);
  const promptTokens = countOf(json.prompt_eval_count);
  const predictedTokens = countOf(json.eval_count);
  const loadMs = durationMsOf(json.load_duration, NS_PER_MS);
  return {
    source: 'ollama durations',
    promptMs,
    ...(predictedMs !== undefined ? { predictedMs } : {}),
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    ...(predictedTokens !== undefined ? { predictedTokens } : {}),
    ...(loadMs !== undefined ? { loadMs } : {}),
  };
}

/** Events of one Ollama object (a stream chunk or the whole non-streamed answer). */
function eventsOf(json: Record<string, unknown>, t: number): { events: TimedEvent[]; done: boolean } {
  const error = json.error;
  if (error !== undefined) {
    const message = stringOf(error) ?? JSON.stringify(error).slice(0, 200);
    return { events: [{ kind: 'error', t, error: new EndpointError('http_5xx', `The server reported an error: ${message}`) }], done: true };
  }
  const events: TimedEvent[] = [];
  const message = record(json.message);
  const thinking = stringOf(message?.thinking);
  const content = stringOf(message?.content);
  if (thinking) events.push({ kind: 'reasoning', t, text: thinking });
  if (content) events.push({ kind: 'token', t, text: content });
  if (json.done !== true) return { events, done: false };
  const timings = ollamaTimings(json);
  const inputTokens = countOf(json.prompt_eval_count);
  const outputTokens = countOf(json.eval_count);
  events.push({ kind: 'usage', t, ...(inputTokens !== undefined ? { inputTokens } : {}), ...(outputTokens !== undefined ? { outputTokens } : {}), ...(timings ? { timings } : {}) });
  const reason = stringOf(json.done_reason);
  events.push({ kind: 'done', t, ...(reason ? { finishReason: reason } : {}) });
  return { events, done: true };
}

class OllamaStreamDecoder implements StreamDecoder {
  private readonly lines = new NdjsonParser();
  private complete = false;
  private failed = false;

  feed(chunk: Uint8Array, t: number): TimedEvent[] {
    return this.read(() => this.lines.feed(chunk, t), t);
  }

  end(t: number): TimedEvent[] {
    const events = this.read(() => this.lines.end(t), t);
    if (!this.complete && !this.failed) events.push({ kind: 'error', t, error: new EndpointError('connection_reset', 'The stream ended before the object with "done": true; the answer is incomplete.') });
    return events;
  }

  private read(next: () => { text: string; t: number }[], t: number): TimedEvent[] {
    if (this.failed || this.complete) return [];
    let lines: { text: string; t: number }[];
    try {
      lines = next();
    } catch (error) {
      if (!(error instanceof SseLimitError)) throw error;
      this.failed = true;
      return [{ kind: 'error', t, error: new EndpointError('malformed_stream', `The stream was refused: ${error.message}.`) }];
    }
    const out: TimedEvent[] = [];
    for (const line of lines) {
      const json = record(parseJson(line.text));
      if (!json) {
        this.failed = true;
        out.push({ kind: 'error', t: line.t, error: new EndpointError('malformed_stream', `The stream carried a line that is not a JSON object: ${line.text.slice(0, 120)}`) });
        break;
      }
      const { events, done } = eventsOf(json, line.t);
      out.push(...events);
      if (events.some((e) => e.kind === 'error')) this.failed = true;
      else if (done) this.complete = true;
      if (done) break;
    }
    return out;
  }
}

class OllamaJsonDecoder extends JsonBodyDecoder {
  protected eventsOf(value: unknown, t: number): TimedEvent[] {
    return eventsOf(record(value) ?? {}, t).events;
  }
}

/** The server's error message in an Ollama error body (`{"error": "…"}`). */
export function ollamaErrorMessage(body: string): string | undefined {
  return stringOf(record(parseJson(body))?.error);
}
