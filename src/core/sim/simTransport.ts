/**
 * The simulator in process, on a virtual clock: the same response model as the HTTP simulator
 * (simResponse.ts: its scenario's answers, its TTFT and decode timing, its seed), encoded as the same
 * server-sent events and read by the real Chat Completions decoder — without a socket or waiting for
 * the time to pass. For statistical tests and benchmarks that need thousands of comparisons (the A/A
 * test of run-until-decided); whatever goes over HTTP is tested against the HTTP simulator.
 */
import { httpProvider } from '../endpoint/providers';
import type { ChatTransport } from '../endpoint/transport';
import type { TimedEvent } from '../endpoint/types';
import { seededRandom } from '../stats/random';
import { loadEncoder } from '../tokens/engine';
import { chunkLine, simResponse, type ChatBody } from './simResponse';
import { DEFAULT_SIM_OPTIONS, type SimOptions } from './simOptions';

export async function simTransport(partial: Partial<SimOptions> = {}): Promise<ChatTransport> {
  const options = { ...DEFAULT_SIM_OPTIONS, ...partial };
  if (options.fault !== 'none' || options.slots > 0) throw new Error('The in-process simulator models answers and timing only: rehearse faults and slots with the HTTP simulator (startSim).');
  const provider = httpProvider('openai')!;
  const encoder = await loadEncoder('o200k_base');
  const random = seededRandom(options.seed);
  const endpoint = { name: 'simulator (in process)', provider: 'openai' as const, baseUrl: 'http://127.0.0.1:9/v1', simulated: true };
  let served = 0;
  return {
    endpoint,
    async send(request) {
      const body = JSON.parse(provider.buildRequest(endpoint, request, undefined).body) as ChatBody;
      const response = simResponse(body, options, encoder, random);
      const id = `chatcmpl-sim-${served++}`;
      const decoder = provider.decoder('text/event-stream');
      const events: TimedEvent[] = [];
      const write = (t: number, text: string): void => void events.push(...decoder.feed(new TextEncoder().encode(text), t));
      let t = response.ttftMs;
      write(t, chunkLine(id, 0, response.model, { role: 'assistant', content: '' }));
      const all = [...response.reasoning.map((text) => ({ text, reasoning: true })), ...response.pieces.map((text) => ({ text, reasoning: false }))];
      if (all.length === 0) all.push({ text: '.', reasoning: false });
      all.forEach((piece, i) => {
        if (i > 0) t += Math.max(0, options.decodeMsPerToken + response.jitter());
        write(t, chunkLine(id, 0, response.model, piece.reasoning ? { reasoning_content: piece.text } : { content: piece.text }));
      });
      const finish = response.maxTokens !== undefined && response.pieces.length >= response.maxTokens ? 'length' : 'stop';
      write(t, chunkLine(id, 0, response.model, {}, finish));
      write(t, `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: response.model, choices: [], usage: { prompt_tokens: response.inputTokens, completion_tokens: all.length, total_tokens: response.inputTokens + all.length } })}\n\ndata: [DONE]\n\n`);
      events.push(...decoder.end(t));
      return { startedAt: 0, status: 200, streamed: true, events, endedAt: t, simulated: true };
    },
  };
}
