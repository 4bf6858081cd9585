// Langfuse: its span processor sends to Langfuse (LANGFUSE_BASE_URL and keys from the environment); a second
// processor sends the same spans to your Collector (OTEL_EXPORTER_OTLP_ENDPOINT) for prompt-insight.
import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import { observeOpenAI } from '@langfuse/openai';
import OpenAI from 'openai';
import { homesMessages } from './homesPrompt.cjs';

const provider = new NodeTracerProvider({ spanProcessors: [new LangfuseSpanProcessor(), new BatchSpanProcessor(new OTLPTraceExporter())] });
provider.register();
// The Langfuse prompt's version (an integer): mapped to a commit in homes.versions.yaml.
const client = observeOpenAI(new OpenAI({ maxRetries: 0 }), { langfusePrompt: { name: 'homes-assistant', version: Number(process.env.PROMPT_VERSION), isFallback: false } });

export async function* answer(city, request) {
  const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: homesMessages(city, request) });
  for await (const chunk of stream) yield chunk.choices[0]?.delta?.content ?? '';
}

export const shutdown = () => provider.shutdown();
