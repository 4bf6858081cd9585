// Langfuse, a RAG app: the search is a retriever observation (its output: the documents), the model call a
// generation, both under the app's request observation; a second processor sends the spans to your Collector.
import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import { startObservation } from '@langfuse/tracing';
import { observeOpenAI } from '@langfuse/openai';
import { context, trace } from '@opentelemetry/api';
import OpenAI from 'openai';
import { homesMessages } from './homesPrompt.cjs';
import { searchListings, withPassages } from './homesListings.cjs';

const provider = new NodeTracerProvider({ spanProcessors: [new LangfuseSpanProcessor(), new BatchSpanProcessor(new OTLPTraceExporter())] });
provider.register();
const client = observeOpenAI(new OpenAI({ maxRetries: 0 }), { langfusePrompt: { name: 'homes-assistant', version: Number(process.env.PROMPT_VERSION), isFallback: false } });

export async function* answer(city, request) {
  const requestObservation = startObservation('homes-answer', { input: { city, request } });
  try {
    const query = `homes in ${city}`;
    const retriever = requestObservation.startObservation('listings-search', { input: { query } }, { asType: 'retriever' });
    const documents = searchListings(city);
    retriever.update({ output: { documents } }).end();
    const stream = await context.with(trace.setSpan(context.active(), requestObservation.otelSpan), () =>
      client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: withPassages(homesMessages(city, request), documents) }),
    );
    for await (const chunk of stream) yield chunk.choices[0]?.delta?.content ?? '';
  } finally {
    requestObservation.end();
  }
}

export const shutdown = () => provider.shutdown();
