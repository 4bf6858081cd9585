// The Vercel AI SDK 7 with @ai-sdk/otel: GenAI spans (TTFT included) to OTEL_EXPORTER_OTLP_ENDPOINT. The prompt's
// name and version sit on the app's own span around the call: every span below it belongs to that version.
import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OpenTelemetry } from '@ai-sdk/otel';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { registerTelemetry, streamText } from 'ai';
import { context, trace } from '@opentelemetry/api';
import { homesSystem } from './homesPrompt.cjs';

const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
provider.register();
registerTelemetry(new OpenTelemetry());
const llm = createOpenAICompatible({ name: 'llm', baseURL: process.env.OPENAI_BASE_URL, includeUsage: true });
const tracer = trace.getTracer('homes-app');

export async function* answer(city, request) {
  const span = tracer.startSpan('homes', { attributes: { 'gen_ai.prompt.name': 'homes-assistant', 'gen_ai.prompt.version': process.env.PROMPT_VERSION } });
  const result = context.with(trace.setSpan(context.active(), span), () =>
    streamText({ model: llm('gpt-4o-mini'), maxRetries: 0, system: homesSystem(city), prompt: request }),
  );
  try {
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') yield part.text;
      else if (part.type === 'error') throw part.error;
    }
  } finally {
    span.end();
  }
}

export const shutdown = () => provider.shutdown();
