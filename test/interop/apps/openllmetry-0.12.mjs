// OpenLLMetry 0.12 (llm.request.type, gen_ai.prompt.N.*): the prompt's version from the Resource, set by the
// deploy: OTEL_RESOURCE_ATTRIBUTES=gen_ai.prompt.version=$(git rev-parse HEAD)
import * as traceloop from '@traceloop/node-server-sdk';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import OpenAI from 'openai';
import { homesMessages } from './homesPrompt.cjs';

traceloop.initialize({
  appName: 'homes-app',
  exporter: new OTLPTraceExporter(),
  instrumentModules: { openAI: OpenAI },
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
});
const client = new OpenAI({ maxRetries: 0 });

export async function* answer(city, request) {
  const stream = await traceloop.withWorkflow({ name: 'homes', associationProperties: { 'gen_ai.prompt.name': 'homes-assistant' } }, () =>
    client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: homesMessages(city, request) }),
  );
  for await (const chunk of stream) yield chunk.choices[0]?.delta?.content ?? '';
}

export const shutdown = () => traceloop.forceFlush();
