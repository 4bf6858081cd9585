/**
 * The simulator's model of one response, apart from how it is sent: which answer (the scenario's
 * rules, else filler of the configured length), how many tokens it reads, which fault it rehearses,
 * and its timing — TTFT = base + prefill per input token (± jitter), then one decode interval per
 * token (± jitter). The HTTP server (simServer.ts) plays it on a socket; the in-process transport
 * (simTransport.ts) on a virtual clock.
 */
import { chatTokenTotal } from '../tokens/chatOverhead';
import type { TokenEncoder } from '../tokens/engine';
import { chooseAnswer, judgeReply } from './scenario';
import type { SimFault, SimOptions } from './simOptions';

export interface ChatBody {
  model?: unknown;
  messages?: unknown;
  max_tokens?: unknown;
  stream?: unknown;
}

export interface SimResponse {
  model: string;
  inputTokens: number;
  fault: SimFault;
  maxTokens: number | undefined;
  pieces: string[];
  reasoning: string[];
  ttftMs: number;
  /** A fresh jitter (± jitterMs) for each decode interval. */
  jitter: () => number;
}

const FILLER = 'the a model answer of this prompt is simulated for timing and has no meaning beyond its length so counts stay honest'.split(' ');

/** The response to a chat request whose `messages` is a list. Draws from `random` in a fixed order, so a seed replays it. */
export function simResponse(body: ChatBody, options: SimOptions, encoder: TokenEncoder, random: () => number): SimResponse {
  const messages = (body.messages as unknown[]).map((m) => {
    const message = (m ?? {}) as { role?: unknown; content?: unknown };
    return { role: String(message.role ?? 'user'), content: typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '') };
  });
  const inputTokens = chatTokenTotal(messages.map((m) => ({ contentTokens: encoder.count(m.content), roleTokens: encoder.count(m.role) }))).total;
  const model = `${typeof body.model === 'string' ? body.model : 'sim-1'} (simulated)`;
  const fault = options.fault !== 'none' && random() < options.faultRate ? options.fault : 'none';
  const maxTokens = typeof body.max_tokens === 'number' && body.max_tokens > 0 ? Math.floor(body.max_tokens) : undefined;
  const promptText = messages.map((m) => m.content).join('\n');
  // A rubric question to a scenario with a judge gets the judge's verdict (scenario.ts); anything else an answer.
  const verdict = options.scenario?.judge && fault === 'none' ? judgeReply(options.scenario.judge, messages, random) : undefined;
  const pieces = fault === '429' || fault === '500' ? [] : verdict !== undefined ? [verdict] : answerPieces(options, promptText, random, encoder, maxTokens);
  const reasoning = Array.from({ length: options.reasoningTokens }, (_, i) => (i === 0 ? 'Thinking' : ' step'));
  const jitter = (): number => (random() * 2 - 1) * options.jitterMs;
  const ttftMs = fault === '429' || fault === '500' ? 0 : Math.max(1, options.ttftBaseMs + options.prefillMsPerInputToken * inputTokens + jitter());
  return { model, inputTokens, fault, maxTokens, pieces, reasoning, ttftMs, jitter };
}

/** One server-sent event of a streamed Chat Completion. */
export function chunkLine(id: string, created: number, model: string, delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

/** The answer as pieces of about one token each: a scenario answer, else filler of the configured length. */
function answerPieces(options: SimOptions, promptText: string, random: () => number, encoder: TokenEncoder, maxTokens: number | undefined): string[] {
  let pieces: string[];
  if (options.scenario) {
    const text = chooseAnswer(options.scenario, promptText, random);
    pieces = text.match(/\s*[^\s]+/g) ?? [text];
    pieces = pieces.flatMap((p) => (encoder.count(p) > 1 ? splitPiece(p, encoder.count(p)) : [p]));
  } else {
    const n = Math.max(1, Math.round(options.outputTokens * (0.8 + 0.4 * random())));
    pieces = Array.from({ length: n }, (_, i) => `${i === 0 ? 'Simulated' : ' ' + FILLER[Math.floor(random() * FILLER.length)]}`);
  }
  return maxTokens !== undefined ? pieces.slice(0, maxTokens) : pieces;
}

/** Splits a word into `count` nearly equal parts so one piece stands for about one token. */
function splitPiece(piece: string, count: number): string[] {
  const chars = [...piece];
  const size = Math.ceil(chars.length / count);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/**
 * With slots, the simulator reports llama-server's per-request `timings` (from the moment a slot took
 * the request): prompt_ms is the scripted prefill, so what the client's TTFT holds beyond it is the queue.
 * predicted_ms is the scripted decode (the schedule from the first chunk's due time to the last's), as
 * llama-server reports its own compute time: a late timer on a busy machine shows in the client's
 * figures, not in what the server says it spent.
 */
export function slotTimings(promptTokens: number, prefillMs: number, predictedTokens: number, decodeMs: number): Record<string, number> {
  return { prompt_n: promptTokens, prompt_ms: prefillMs, predicted_n: predictedTokens, predicted_ms: decodeMs };
}
