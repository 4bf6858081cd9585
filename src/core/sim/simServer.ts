/**
 * The bundled simulated endpoint: OpenAI-compatible Chat Completions on 127.0.0.1 that behaves like
 * an inference server. TTFT = base + prefill per input token (+ jitter); then one chunk per decode
 * interval (optionally several tokens per chunk, optionally reasoning deltas first). Headers go out
 * with the first token, as servers that start the response when generation starts do, so curl's
 * time_starttransfer is a fair reference. Fault modes rehearse what real endpoints do wrong.
 * Every answer is labelled: header `x-simulated-endpoint: prompt-insight` and model `…(simulated)`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIMULATED_HEADER } from '../endpoint/httpExchange';
import { loadEncoder, type TokenEncoder } from '../tokens/engine';
import { seededRandom } from '../stats/random';
import { DEFAULT_SIM_OPTIONS, type SimOptions } from './simOptions';
import { chunkLine, simResponse, slotTimings, type ChatBody } from './simResponse';
import { slotQueue } from './simSlots';

export interface RunningSim {
  url: string;
  port: number;
  /** Requests served so far (for tests and the demo's log). */
  served(): number;
  close(): Promise<void>;
}

export async function startSim(partial: Partial<SimOptions> = {}): Promise<RunningSim> {
  const options = { ...DEFAULT_SIM_OPTIONS, ...partial };
  const encoder = await loadEncoder('o200k_base');
  const random = seededRandom(options.seed);
  let served = 0;
  const prefixCache = { queries: 0, hits: 0 };
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && /\/models\/?$/.test(req.url ?? '')) {
      json(res, 200, { object: 'list', data: [{ id: 'sim-1', object: 'model', owned_by: 'prompt-insight (simulated)' }] });
      return;
    }
    if (options.prefixCacheHitRate !== undefined && req.method === 'GET' && /^\/metrics\/?(\?.*)?$/.test(req.url ?? '')) {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', [SIMULATED_HEADER]: 'prompt-insight' });
      res.end(prefixCacheExposition(prefixCache));
      return;
    }
    if (req.method !== 'POST' || !/\/chat\/completions\/?(\?.*)?$/.test(req.url ?? '')) {
      json(res, 404, { error: { message: `The simulator serves POST …/chat/completions and GET …/models, not ${req.method} ${req.url}` } });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrivedAt = performance.now();
      // The answer is prepared after every request that is ready has been stamped: when many arrive
      // at once, one request's preparation must not delay the next one's arrival time.
      setImmediate(() => answer(res, chunks, arrivedAt));
    });
  });
  // Slots: beyond them a request waits its turn (the client's TTFT includes the wait).
  const slots = slotQueue(options.slots, (res, body) => serveChat(res, body, performance.now(), options, encoder, random, prefixCache));
  const answer = (res: http.ServerResponse, chunks: Buffer[], arrivedAt: number): void => {
    served++;
    let body: ChatBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatBody;
    } catch {
      json(res, 400, { error: { message: 'The request body is not JSON.' } });
      return;
    }
    if (!Array.isArray(body.messages)) {
      json(res, 400, { error: { message: '`messages` must be a list.' } });
      return;
    }
    if (options.slots <= 0) return serveChat(res, body, arrivedAt, options, encoder, random, prefixCache);
    slots.enqueue(res, body);
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function serveChat(res: http.ServerResponse, body: ChatBody, arrivedAt: number, options: SimOptions, encoder: TokenEncoder, random: () => number, prefixCache: { queries: number; hits: number }): void {
  const { model, inputTokens, fault, maxTokens, pieces, reasoning, ttftMs, jitter } = simResponse(body, options, encoder, random);
  // Counted when the request is scheduled (has a slot), as vLLM counts a prefix-cache lookup.
  if (options.prefixCacheHitRate !== undefined) {
    prefixCache.queries += inputTokens;
    prefixCache.hits += Math.round(inputTokens * options.prefixCacheHitRate);
  }
  if (fault === '429') {
    json(res, 429, { error: { type: 'rate_limit_exceeded', message: 'Simulated rate limit: slow down.' } }, { 'retry-after': '1' });
    return;
  }
  if (fault === '500') {
    json(res, 500, { error: { type: 'server_error', message: 'Simulated internal error.' } });
    return;
  }
  const id = `chatcmpl-sim-${Math.floor(random() * 1e9)}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string => chunkLine(id, created, model, delta, finish);
  const outputTokens = reasoning.length + pieces.length;

  if (fault === 'non-streaming') {
    const e2e = ttftMs + options.decodeMsPerToken * Math.max(0, outputTokens - 1);
    setTimeout(() => {
      const sentAt = performance.now() - arrivedAt;
      json(res, 200, {
        id, object: 'chat.completion', created, model,
        choices: [{ index: 0, message: { role: 'assistant', content: pieces.join('') }, finish_reason: 'stop' }],
        usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
        x_sim: { ttft_ms: sentAt, e2e_ms: sentAt },
      });
    }, e2e);
    return;
  }

  // The schedule: every chunk's due time is fixed up front from arrival, so timer lateness does not accumulate.
  const all = [...reasoning.map((text) => ({ text, reasoning: true })), ...pieces.map((text) => ({ text, reasoning: false }))];
  const groups: { text: string; reasoning: boolean }[][] = [];
  for (let i = 0; i < all.length; ) {
    const group = [all[i]!];
    i++;
    while (group.length < options.tokensPerChunk && i < all.length && all[i]!.reasoning === group[0]!.reasoning) group.push(all[i++]!);
    groups.push(group);
  }
  let due = arrivedAt + ttftMs;
  let next = 0;
  let firstSentAt: number | undefined;
  const resetAfter = fault === 'reset' ? Math.max(1, Math.floor(groups.length / 2)) : -1;
  const malformedAfter = fault === 'malformed' ? Math.max(1, Math.floor(groups.length / 3)) : -1;
  let closed = false;
  res.on('close', () => (closed = true));
  const step = (): void => {
    if (closed) return;
    if (firstSentAt === undefined) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', [SIMULATED_HEADER]: 'prompt-insight' });
      res.write(chunk({ role: 'assistant', content: '' }));
    }
    // Every group already due goes out in this turn: on a starved event loop, one turn per group would add
    // a scheduler slice per token, and the answer's length (not its schedule) would decide its E2E latency.
    do {
      if (next === resetAfter) {
        res.socket?.destroy();
        return;
      }
      if (next === malformedAfter) {
        res.end('data: {"choices": [{"delta": {"content": "broken\n\n');
        return;
      }
      const group = groups[next++]!;
      const text = group.map((g) => g.text).join('');
      res.write(chunk(group[0]!.reasoning ? { reasoning_content: text } : { content: text }));
      firstSentAt ??= performance.now() - arrivedAt;
      if (fault === 'stall' && next === 1) return; // nothing more, ever: the client's timeout must end it
      if (next < groups.length) due += options.decodeMsPerToken * group.length + jitter();
    } while (next < groups.length && due <= performance.now());
    if (next < groups.length) {
      setTimeout(step, Math.max(0, due - performance.now()));
      return;
    }
    const e2eMs = performance.now() - arrivedAt;
    res.write(chunk({}, maxTokens !== undefined && pieces.length >= maxTokens ? 'length' : 'stop'));
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens }, x_sim: { ttft_ms: firstSentAt, e2e_ms: e2eMs }, ...(options.slots > 0 ? { timings: slotTimings(inputTokens, ttftMs, outputTokens, due - (arrivedAt + ttftMs)) } : {}) })}\n\n`);
    res.end('data: [DONE]\n\n');
  };
  if (groups.length === 0) groups.push([{ text: '.', reasoning: false }]);
  setTimeout(step, Math.max(0, due - performance.now()));
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), [SIMULATED_HEADER]: 'prompt-insight', ...headers });
  res.end(text);
}

/** vLLM's prefix-cache counters in the Prometheus text format, labelled by model as vLLM labels them. */
function prefixCacheExposition(counts: { queries: number; hits: number }): string {
  return [
    '# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.',
    '# TYPE vllm:prefix_cache_queries_total counter',
    `vllm:prefix_cache_queries_total{model_name="sim-1"} ${counts.queries}`,
    '# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.',
    '# TYPE vllm:prefix_cache_hits_total counter',
    `vllm:prefix_cache_hits_total{model_name="sim-1"} ${counts.hits}`,
    '',
  ].join('\n');
}
