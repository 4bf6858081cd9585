/**
 * Counts one chat request — each message and the whole — with the best tokenizer at hand, and says
 * which it was:
 *  1. a forced encoding (CLI `--encoding`);
 *  2. the model's own tokenizer.json (CLI `--tokenizer`, setting `promptInsight.tokens.tokenizers`),
 *     the request rendered through the model's chat template so the per-message framing is exact;
 *  3. the model's own tiktoken encoding (OpenAI models);
 *  4. the configured endpoint's `/tokenize` (vLLM, llama-server);
 *  5. otherwise an estimate with o200k_base and OpenAI's chat framing.
 * Per-message counts go through the counter's slots, so an edit recounts only what changed.
 */
import { renderWithEngine } from '../render/renderer';
import { chatTokenTotal } from '../tokens/chatOverhead';
import type { TokenCounter } from '../tokens/counter';
import { loadEncoder, type TokenEncoder } from '../tokens/engine';
import type { EncodingName } from '../tokens/encodingNames';
import type { ModelTokenInfo } from '../tokens/models';
import type { ChatTemplate, ModelTokenizer } from '../tokens/modelTokenizer';
import { loadTokenizerFolder, type TokenizerSource } from '../tokens/tokenizerFolder';
import { tokenizerMappingFor, type TokenizerMapping } from '../tokens/tokenizerMappings';
import { countWithEndpoint, serverChatTemplate, type ChatMessageText, type TokenizeEndpoint } from './endpointTokenize';

export interface RequestCountOptions {
  /** A forced encoding (CLI `--encoding`): exact for itself. */
  encoding?: EncodingName;
  /** One tokenizer for every prompt (CLI `--tokenizer PATH`). */
  tokenizer?: TokenizerSource;
  /** Model-name patterns → folders (setting `promptInsight.tokens.tokenizers`). */
  tokenizers?: readonly TokenizerMapping[];
  /** The endpoint the user configured, asked for `/tokenize` when no tokenizer is at hand. Never set in an untrusted workspace. */
  tokenizeEndpoint?: TokenizeEndpoint;
  workspaceFolders?: readonly string[];
  /** False in Restricted Mode: no chat template is rendered (the framing is estimated). */
  workspaceTrusted?: boolean;
}

export type CountedWith = 'encoding' | 'tokenizer' | 'endpoint';

export interface RequestCount {
  messageTokens: number[];
  totalTokens: number;
  overheadTokens: number;
  /** What counted, for labels: "o200k_base", "tokenizer.json of Qwen3-8B", "llama.cpp /tokenize". */
  countedWith: string;
  kind: CountedWith;
  /** True when the total is exact: the model's own tokenizer and its own chat framing. */
  exact: boolean;
  /** Where the chat framing came from: "tokenizer_config.json", "chat_template.jinja", "the server's /props", "the server". */
  templateFrom?: string;
  /** Why a better count was not made (a folder that could not be read, a template that failed). */
  notes: string[];
  /** Counts a selection's text like the messages (the status bar). */
  encoder: TokenEncoder;
}

export async function countRequest(model: ModelTokenInfo, messages: readonly ChatMessageText[], counter: TokenCounter, slot: string, options: RequestCountOptions): Promise<RequestCount> {
  const notes: string[] = [];
  if (options.encoding) return countWithEncoding(await loadEncoder(options.encoding), true, messages, counter, slot, notes);
  const source = options.tokenizer ?? tokenizerMappingFor(model.model, options.tokenizers ?? []);
  if (source) {
    try {
      const tokenizer = await loadTokenizerFolder(source, options.workspaceFolders);
      return await countWithTokenizer(tokenizer, messages, counter, slot, options, notes);
    } catch (error) {
      notes.push(`the tokenizer at ${source.path} could not be used: ${(error as Error).message}`);
    }
  }
  const encoder = await loadEncoder(model.encoding);
  if (model.exact) return countWithEncoding(encoder, true, messages, counter, slot, notes);
  if (options.tokenizeEndpoint && options.workspaceTrusted !== false && messages.length > 0) {
    try {
      const counts = await countWithEndpoint(options.tokenizeEndpoint, model.model, messages);
      const content = counts.messageTokens.reduce((sum, n) => sum + n, 0);
      return {
        messageTokens: counts.messageTokens,
        totalTokens: counts.totalTokens,
        overheadTokens: counts.totalTokens - content,
        countedWith: `${counts.server} /tokenize`,
        kind: 'endpoint',
        exact: true,
        templateFrom: 'the server',
        notes,
        encoder,
      };
    } catch (error) {
      notes.push(`the configured endpoint could not count: ${(error as Error).message}`);
    }
  }
  return countWithEncoding(encoder, false, messages, counter, slot, notes);
}

function countMessages(encoder: TokenEncoder, messages: readonly ChatMessageText[], counter: TokenCounter, slot: string): number[] {
  // Each message is a slot of the counter, so an edit recounts only what changed in it.
  return messages.map((message, index) => counter.countVersion(encoder, message.content, `${slot}\u0000${index}`));
}

/** OpenAI's chat framing (chatOverhead.ts): exact for OpenAI models, an estimate for any other. */
function countWithEncoding(encoder: TokenEncoder, exact: boolean, messages: readonly ChatMessageText[], counter: TokenCounter, slot: string, notes: string[]): RequestCount {
  const messageTokens = countMessages(encoder, messages, counter, slot);
  const { total, overhead } = framedTotal(encoder, messages, messageTokens, counter);
  return { messageTokens, totalTokens: total, overheadTokens: overhead, countedWith: encoder.name, kind: 'encoding', exact, notes, encoder };
}

function framedTotal(encoder: TokenEncoder, messages: readonly ChatMessageText[], messageTokens: number[], counter: TokenCounter): { total: number; overhead: number } {
  if (messages.length === 0) return { total: 0, overhead: 0 };
  return chatTokenTotal(
    messages.map((m, i) => ({ contentTokens: messageTokens[i]!, roleTokens: counter.count(encoder, m.role), ...(m.name ? { nameTokens: counter.count(encoder, m.name) } : {}) })),
  );
}

async function countWithTokenizer(tokenizer: ModelTokenizer, messages: readonly ChatMessageText[], counter: TokenCounter, slot: string, options: RequestCountOptions, notes: string[]): Promise<RequestCount> {
  // A tokenizer that counts in its worker leaves selections (the status bar) to the estimate.
  const encoder = tokenizer.encoder ?? (await loadEncoder('o200k_base'));
  const base = { countedWith: tokenizer.label, kind: 'tokenizer' as const, notes, encoder };
  if (messages.length === 0) return { ...base, messageTokens: [], totalTokens: 0, overheadTokens: 0, exact: true };
  const framing = await chatFraming(tokenizer, messages, options, notes);
  // One batch: the messages, then the rendered request or (its framing estimated) the roles and names.
  const texts: CountedText[] = messages.map((m, index) => ({ text: m.content, slot: `${slot}\u0000${index}` }));
  if (framing) texts.push({ text: framing.text, slot: `${slot}\u0000request` });
  else for (const m of messages) texts.push({ text: m.role }, ...(m.name ? [{ text: m.name }] : []));
  const counts = await countTexts(tokenizer, counter, texts);
  const messageTokens = counts.slice(0, messages.length);
  const content = messageTokens.reduce((sum, n) => sum + n, 0);
  if (framing) return { ...base, messageTokens, totalTokens: counts[messages.length]!, overheadTokens: counts[messages.length]! - content, exact: true, templateFrom: framing.from };
  let next = messages.length;
  const framed = chatTokenTotal(messages.map((m, i) => ({ contentTokens: messageTokens[i]!, roleTokens: counts[next++]!, ...(m.name ? { nameTokens: counts[next++]! } : {}) })));
  return { ...base, messageTokens, totalTokens: framed.total, overheadTokens: framed.overhead, exact: false };
}

interface CountedText {
  text: string;
  /** The counter's slot: an edit recounts only what changed in it. */
  slot?: string;
}

/** In this thread through the counter; or in the tokenizer's worker, rejecting when the counts are not done in time. */
async function countTexts(tokenizer: ModelTokenizer, counter: TokenCounter, texts: CountedText[]): Promise<number[]> {
  const { encoder, offThread } = tokenizer;
  if (encoder) return texts.map(({ text, slot }) => (slot ? counter.countVersion(encoder, text, slot) : counter.count(encoder, text)));
  return offThread!.count(texts.map(({ text }) => text));
}

/** The request rendered through the model's chat template, or undefined (and why) when the framing is estimated. */
async function chatFraming(tokenizer: ModelTokenizer, messages: readonly ChatMessageText[], options: RequestCountOptions, notes: string[]): Promise<{ text: string; from: string } | undefined> {
  if (options.workspaceTrusted === false) {
    notes.push('Restricted Mode: the chat template is not rendered, so the chat framing is estimated');
    return undefined;
  }
  const template = tokenizer.chatTemplate ?? (options.tokenizeEndpoint ? await serverChatTemplate(options.tokenizeEndpoint).catch(() => undefined) : undefined);
  if (!template) {
    notes.push(`no chat template beside ${tokenizer.label} (tokenizer_config.json, chat_template.jinja)${options.tokenizeEndpoint ? ' nor from the server' : ''}, so the chat framing is estimated`);
    return undefined;
  }
  const rendered = await renderChatTemplate(template, messages);
  if ('error' in rendered) {
    notes.push(`the chat template from ${template.from} could not be rendered (${rendered.error}), so the chat framing is estimated`);
    return undefined;
  }
  return { text: rendered.text, from: template.from };
}

/** The request as the server builds it: the model's template over the messages, the assistant's turn opened. */
export async function renderChatTemplate(template: ChatTemplate, messages: readonly ChatMessageText[]): Promise<{ text: string } | { error: string }> {
  const chat = messages.map((m) => ({ role: m.role, content: m.content, ...(m.name ? { name: m.name } : {}) }));
  const answer = await renderWithEngine({ engine: 'jinja2', template: template.template, data: { ...template.values, messages: chat, add_generation_prompt: true }, chatTemplate: true });
  if ('error' in answer) return { error: answer.error };
  return 'text' in answer ? { text: answer.text } : { error: 'the template engine gave no text' };
}
