// OpenInference (Arize Phoenix): spans to OTEL_EXPORTER_OTLP_ENDPOINT (your Collector) as OTLP/HTTP JSON.
import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { setPromptTemplate } from '@arizeai/openinference-core';
import { context } from '@opentelemetry/api';
import OpenAI from 'openai';
import { homesMessages } from './homesPrompt.cjs';

const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
provider.register();
const instrumentation = new OpenAIInstrumentation();
instrumentation.setTracerProvider(provider);
instrumentation.manuallyInstrument(OpenAI);
const client = new OpenAI({ maxRetries: 0 });

export async function* answer(city, request) {
  // llm.prompt_template.version: a commit, or a label mapped to one in homes.versions.yaml.
  const template = { template: 'homes.prompty', version: process.env.PROMPT_VERSION };
  const stream = await context.with(setPromptTemplate(context.active(), template), () =>
    client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: homesMessages(city, request) }),
  );
  for await (const chunk of stream) yield chunk.choices[0]?.delta?.content ?? '';
}

export const shutdown = () => provider.shutdown();
