// The Vercel AI SDK's `ai.*` telemetry (LegacyOpenTelemetry; ai ≤ 6's experimental_telemetry writes the same), with
// nothing that names the prompt: prompt-insight matches each call to a revision by the messages it sent.
import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { LegacyOpenTelemetry } from '@ai-sdk/otel';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { registerTelemetry, streamText } from 'ai';
import { homesSystem } from './homesPrompt.cjs';

const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
provider.register();
registerTelemetry(new LegacyOpenTelemetry());
const llm = createOpenAICompatible({ name: 'llm', baseURL: process.env.OPENAI_BASE_URL, includeUsage: true });

export async function* answer(city, request) {
  const result = streamText({ model: llm('gpt-4o-mini'), maxRetries: 0, system: homesSystem(city), prompt: request });
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') yield part.text;
    else if (part.type === 'error') throw part.error;
  }
}

export const shutdown = () => provider.shutdown();
