// OpenLLMetry (Traceloop): spans to OTEL_EXPORTER_OTLP_ENDPOINT (your Collector) as OTLP/HTTP JSON.
import * as traceloop from '@traceloop/node-server-sdk';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import OpenAI from 'openai';
import { homesMessages } from './homesPrompt.cjs';

traceloop.initialize({
  appName: 'homes-app',
  exporter: new OTLPTraceExporter(),
  instrumentModules: { openAI: OpenAI },
  traceloopSyncEnabled: false, // no prompt registry sync with Traceloop's cloud
  silenceInitializationMessage: true,
});
const client = new OpenAI({ maxRetries: 0 });

export async function* answer(city, request) {
  // Association properties are copied onto every span inside, the model call's included.
  const properties = { 'gen_ai.prompt.name': 'homes-assistant', 'gen_ai.prompt.version': process.env.PROMPT_VERSION };
  const stream = await traceloop.withWorkflow({ name: 'homes', associationProperties: properties }, () =>
    client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: homesMessages(city, request) }),
  );
  for await (const chunk of stream) yield chunk.choices[0]?.delta?.content ?? '';
}

export const shutdown = () => traceloop.forceFlush();
