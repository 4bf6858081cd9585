/**
 * Chat-format overhead as OpenAI's cookbook counts it for current chat models: every message
 * costs 3 tokens of framing plus its role (and name) text, a name adds 1 more, and 3 tokens
 * prime the reply.
 */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_NAME = 1;
export const REPLY_PRIMING_TOKENS = 3;

export interface CountedMessage {
  contentTokens: number;
  roleTokens: number;
  /** Tokens of the name text, when the message has a name. */
  nameTokens?: number;
}

/** Total prompt tokens of a chat request; `overhead` is everything that is not message content. */
export function chatTokenTotal(messages: CountedMessage[]): { total: number; overhead: number } {
  let content = 0;
  let overhead = REPLY_PRIMING_TOKENS;
  for (const message of messages) {
    content += message.contentTokens;
    overhead += TOKENS_PER_MESSAGE + message.roleTokens;
    if (message.nameTokens !== undefined) overhead += message.nameTokens + TOKENS_PER_NAME;
  }
  return { total: content + overhead, overhead };
}
