// The official OpenTelemetry instrumentation of the openai client: spans to /v1/traces, messages as log records
// to /v1/logs, at OTEL_EXPORTER_OTLP_ENDPOINT (your Collector). Load it before the app: node --require ./official.cjs app.js
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace');
const { BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { OTLPLogExporter } = require('@opentelemetry/exporter-logs-otlp-http');
const { BaggageSpanProcessor, ALLOW_ALL_BAGGAGE_KEYS } = require('@opentelemetry/baggage-span-processor');
const { OpenAIInstrumentation } = require('@opentelemetry/instrumentation-openai');

const sdk = new NodeSDK({
  // Baggage entries — the prompt's name and version, set below — are copied onto every span.
  spanProcessors: [new BaggageSpanProcessor(ALLOW_ALL_BAGGAGE_KEYS), new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  logRecordProcessors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter() })],
  instrumentations: [new OpenAIInstrumentation({ captureMessageContent: true })],
});
sdk.start();

const { context, propagation } = require('@opentelemetry/api');
const OpenAI = require('openai');
const { homesMessages } = require('./homesPrompt.cjs');

const client = new OpenAI({ maxRetries: 0 }); // OPENAI_BASE_URL and OPENAI_API_KEY from the environment
const prompt = propagation.createBaggage({
  'gen_ai.prompt.name': { value: 'homes-assistant' },
  'gen_ai.prompt.version': { value: process.env.PROMPT_VERSION }, // e.g. the deploy's commit: git rev-parse HEAD
});

async function* answer(city, request) {
  const stream = await context.with(propagation.setBaggage(context.active(), prompt), () =>
    client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: homesMessages(city, request) }),
  );
  for await (const chunk of stream) yield chunk.choices[0]?.delta?.content ?? '';
}

module.exports = { answer, shutdown: () => sdk.shutdown() };
