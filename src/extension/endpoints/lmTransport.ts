/**
 * The VS Code Language Model API (`vscode.lm`) as a transport: no key, the user's signed-in models.
 * Each streamed fragment is timestamped as the iterator yields it, the closest this API gets to the socket.
 */
import * as vscode from 'vscode';
import type { ExchangeResult } from '../../core/endpoint/httpExchange';
import type { ChatTransport } from '../../core/endpoint/transport';
import { EndpointError, type EndpointConfig, type TimedEvent } from '../../core/endpoint/types';

export function languageModelTransport(endpoint: EndpointConfig): ChatTransport {
  return {
    endpoint,
    async send(request, options) {
      const events: TimedEvent[] = [];
      const push = (event: TimedEvent): void => {
        events.push(event);
        options.onEvent?.(event);
      };
      const source = new vscode.CancellationTokenSource();
      const abort = (): void => source.cancel();
      options.signal?.addEventListener('abort', abort, { once: true });
      const timer = setTimeout(() => source.cancel(), options.timeoutMs);
      let startedAt = performance.now();
      try {
        const wanted = endpoint.model ?? request.model;
        const models = (await vscode.lm.selectChatModels({ id: wanted })).concat(await vscode.lm.selectChatModels({ family: wanted }));
        const model = models[0];
        if (!model) throw new EndpointError('http_4xx', `No VS Code language model '${wanted}' is available. Sign in to a model provider (e.g. GitHub Copilot) or set the endpoint's model.`);
        const messages = request.messages.map((m) => (m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(m.content) : vscode.LanguageModelChatMessage.User(m.content)));
        startedAt = performance.now();
        const response = await model.sendRequest(messages, {}, source.token);
        for await (const fragment of response.text) {
          const t = performance.now();
          if (fragment) push({ kind: 'token', t, text: fragment });
        }
        if (source.token.isCancellationRequested) throw new EndpointError(options.signal?.aborted ? 'cancelled' : 'timeout', options.signal?.aborted ? 'The run was cancelled.' : `No complete answer within ${options.timeoutMs} ms.`);
        push({ kind: 'done', t: performance.now() });
      } catch (error) {
        const endpointError = error instanceof EndpointError ? error : toEndpointError(error, options.signal?.aborted === true);
        push({ kind: 'error', t: performance.now(), error: endpointError });
      } finally {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', abort);
        source.dispose();
      }
      const result: ExchangeResult = { startedAt, status: null, streamed: true, events, endedAt: performance.now(), simulated: false };
      return result;
    },
  };
}

function toEndpointError(error: unknown, aborted: boolean): EndpointError {
  if (aborted) return new EndpointError('cancelled', 'The run was cancelled.');
  if (error instanceof vscode.LanguageModelError) {
    if (error.code === vscode.LanguageModelError.Blocked.name) return new EndpointError('rate_limited', `The language model is rate limited: ${error.message}`);
    return new EndpointError('http_4xx', `The language model refused the request (${error.code}): ${error.message}`);
  }
  return new EndpointError('connection_failed', `The language model request failed: ${(error as Error)?.message ?? String(error)}`);
}
