/**
 * The judge prompts of the grounded evaluators (faithfulness, hallucination, answer-correctness,
 * context-*), versioned here so that a score can be traced to the exact words the judge was asked.
 * Change a prompt → bump its version: runs scored with another version are not comparable. The judge
 * is called at temperature 0 (run/transportJudge.ts). Each reply is JSON; anything else is off-format and
 * leaves the run UNDETERMINED (groundedChecks.ts), never a 0.
 */

export const JUDGE_PROMPTS_VERSION = 'grounded-v1';

/** Splits a text into standalone factual claims (Ragas's "statements", DeepEval's "claims"). */
export const CLAIMS_SYSTEM = [
  'You split a text into its factual claims.',
  'A claim is one short, self-contained statement of fact that can be checked on its own: resolve pronouns, keep numbers, names, dates and prices exactly as written.',
  'Do not add, infer or correct anything. Greetings, questions, hedges and advice without facts are not claims.',
  'If the text declines to answer or says it does not know, set "refusal" to true and give no claims.',
  'Reply with only a JSON object: {"claims": ["claim 1", "claim 2"], "refusal": false}.',
].join('\n');

export function claimsUser(text: string, question: string | undefined): string {
  return `${question ? `Question the text answers:\n${question}\n\n` : ''}Text:\n${text}`;
}

/** Judges numbered claims against numbered passages: supported / contradicted / not mentioned. */
export const VERDICTS_SYSTEM = [
  'You check claims against passages. Use only the passages, not your own knowledge.',
  'For each claim give one verdict:',
  '- "supported": a passage states it or it follows directly from a passage;',
  '- "contradicted": a passage states something incompatible with it;',
  '- "not mentioned": the passages neither support nor contradict it.',
  'A supported or contradicted verdict must cite the number of the passage it rests on.',
  'Reply with only a JSON object: {"verdicts": [{"claim": 1, "verdict": "supported", "passage": 2, "reason": "one sentence"}]} with exactly one verdict per claim, in order.',
].join('\n');

export function verdictsUser(claims: readonly string[], passages: readonly string[]): string {
  return `Passages:\n${passages.map((p, i) => `[${i + 1}] ${p}`).join('\n\n')}\n\nClaims:\n${claims.map((c, i) => `${i + 1}. ${c}`).join('\n')}`;
}

/** Judges numbered items (passages or claims) for relevance to a question. */
export const RELEVANCE_SYSTEM = [
  'You judge whether each numbered item is relevant to answering the question: it helps answer it, or is a direct part of the answer.',
  'Reply with only a JSON object: {"verdicts": [{"item": 1, "relevant": true, "reason": "one sentence"}]} with exactly one verdict per item, in order.',
].join('\n');

export function relevanceUser(question: string, items: readonly string[]): string {
  return `Question:\n${question}\n\nItems:\n${items.map((p, i) => `[${i + 1}] ${p}`).join('\n\n')}`;
}
