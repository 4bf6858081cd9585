// The official OpenTelemetry SDK, a RAG app: the search is a GenAI retrieval span written with the semantic
// conventions' names (gen_ai.operation.name "retrieval", gen_ai.retrieval.documents as JSON with each
// document's text under `content`), the model call the official openai instrumentation's span.
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace');
const { BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { OTLPLogExporter } = require('@opentelemetry/exporter-logs-otlp-http');
const { OpenAIInstrumentation } = require('@opentelemetry/instrumentation-openai');

const sdk = new NodeSDK({
  spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  logRecordProcessors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter() })],
  instrumentations: [new OpenAIInstrumentation({ captureMessageContent: true })],
});
sdk.start();

const { context, trace } = require('@opentelemetry/api');
const { ATTR_GEN_AI_OPERATION_NAME, ATTR_GEN_AI_RETRIEVAL_DOCUMENTS, ATTR_GEN_AI_RETRIEVAL_QUERY_TEXT, GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL } = require('@opentelemetry/semantic-conventions/incubating');
const OpenAI = require('openai');
const { homesMessages } = require('./homesPrompt.cjs');
const { searchListings, withPassages } = require('./homesListings.cjs');

const client = new OpenAI({ maxRetries: 0 });
const tracer = trace.getTracer('homes-app');

async function* answer(city, request) {
  const requestSpan = tracer.startSpan('homes.answer', { attributes: { 'gen_ai.prompt.name': 'homes-assistant', 'gen_ai.prompt.version': process.env.PROMPT_VERSION } });
  const inRequest = trace.setSpan(context.active(), requestSpan);
  try {
    const query = `homes in ${city}`;
    const search = tracer.startSpan(GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL, { attributes: { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL, [ATTR_GEN_AI_RETRIEVAL_QUERY_TEXT]: query } }, inRequest);
    const documents = searchListings(city);
    search.setAttribute(ATTR_GEN_AI_RETRIEVAL_DOCUMENTS, JSON.stringify(documents));
    search.end();
    const stream = await context.with(inRequest, () =>
      client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: withPassages(homesMessages(city, request), documents) }),
    );
    for await (const chunk of stream) yield chunk.choices[0]?.delta?.content ?? '';
  } finally {
    requestSpan.end();
  }
}

module.exports = { answer, shutdown: () => sdk.shutdown() };
