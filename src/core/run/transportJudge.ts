/** A judge model for llm-rubric and GitHub llm evaluators, over any transport (temperature 0). */
import type { Judge } from '../adherence/score';
import { runOnce } from './runOnce';
import type { ChatTransport } from '../endpoint/transport';

export function transportJudge(transport: ChatTransport, model: string, timeoutMs: number, signal?: AbortSignal): Judge {
  return async (messages) => {
    const { record, text } = await runOnce(transport, { model, messages, params: { temperature: 0 } }, { timeoutMs, countTokens: () => 0, inputTokensEstimate: null, ...(signal ? { signal } : {}) });
    if (!record.ok) throw new Error(record.error?.message ?? 'the judge endpoint failed');
    return text.answer;
  };
}
