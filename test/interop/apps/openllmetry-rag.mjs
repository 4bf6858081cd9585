// OpenLLMetry (Traceloop), a RAG app: the search is reported with withVectorDBCall (a db.query.result event
// per result, the documents' text in db.query.result.document), inside the workflow with the model call.
import * as traceloop from '@traceloop/node-server-sdk';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import OpenAI from 'openai';
import { homesMessages } from './homesPrompt.cjs';
import { searchListings, withPassages } from './homesListings.cjs';

traceloop.initialize({
  appName: 'homes-app',
  exporter: new OTLPTraceExporter(),
  instrumentModules: { openAI: OpenAI },
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
});
const client = new OpenAI({ maxRetries: 0 });

export async function* answer(city, request) {
  const properties = { 'gen_ai.prompt.name': 'homes-assistant', 'gen_ai.prompt.version': process.env.PROMPT_VERSION };
  const stream = await traceloop.withWorkflow({ name: 'homes', associationProperties: properties }, async () => {
    const documents = await traceloop.withVectorDBCall({ vendor: 'listings', type: 'query' }, async ({ span }) => {
      const found = searchListings(city);
      span.reportResults({ results: [{ ids: found.map((d) => d.id), scores: found.map((d) => d.score), documents: found.map((d) => d.content) }] });
      return found;
    });
    return client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: withPassages(homesMessages(city, request), documents) });
  });
  for await (const chunk of stream) yield chunk.choices[0]?.delta?.content ?? '';
}

export const shutdown = () => traceloop.forceFlush();
