// OpenInference (Arize Phoenix), a RAG app: the search is a RETRIEVER span (its documents' text in
// retrieval.documents.N.document.content), the model call an LLM span, both under the app's request span.
import { NodeTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { getRetrieverAttributes, setPromptTemplate, traceRetriever } from '@arizeai/openinference-core';
import { context, trace } from '@opentelemetry/api';
import OpenAI from 'openai';
import { homesMessages } from './homesPrompt.cjs';
import { searchListings, withPassages } from './homesListings.cjs';

const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
provider.register();
const instrumentation = new OpenAIInstrumentation();
instrumentation.setTracerProvider(provider);
instrumentation.manuallyInstrument(OpenAI);
const client = new OpenAI({ maxRetries: 0 });
const tracer = trace.getTracer('homes-app');

const search = traceRetriever(async (city) => searchListings(city), {
  name: 'listings-search',
  processInput: (city) => ({ 'input.value': `homes in ${city}` }),
  processOutput: (documents) => getRetrieverAttributes({ documents }),
});

export async function* answer(city, request) {
  const requestSpan = tracer.startSpan('homes.answer');
  const inRequest = setPromptTemplate(trace.setSpan(context.active(), requestSpan), { template: 'homes.prompty', version: process.env.PROMPT_VERSION });
  try {
    const documents = await context.with(inRequest, () => search(city));
    const stream = await context.with(inRequest, () =>
      client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: withPassages(homesMessages(city, request), documents) }),
    );
    for await (const chunk of stream) yield chunk.choices[0]?.delta?.content ?? '';
  } finally {
    requestSpan.end();
  }
}

export const shutdown = () => provider.shutdown();
