/** The assertion types a tests file may name, and the bound on the context the grounded ones judge. */

/** Evaluators that judge an answer against its context or reference, claim by claim. */
export const GROUNDED_TYPES = ['faithfulness', 'context-faithfulness', 'hallucination', 'factuality', 'answer-correctness', 'context-recall', 'context-relevance', 'answer-relevance'] as const;
export type GroundedType = (typeof GROUNDED_TYPES)[number];
export const isGroundedType = (type: string): type is GroundedType => (GROUNDED_TYPES as readonly string[]).includes(type);
/** The evaluators that judge the answer's claims against the context: the ones a run's hallucination verdict comes from. */
export const CLAIMS_AGAINST_CONTEXT: ReadonlySet<string> = new Set(['hallucination', 'faithfulness', 'context-faithfulness']);

export const ASSERTION_TYPES = [
  'equals', 'contains', 'icontains', 'contains-any', 'contains-all', 'icontains-any', 'icontains-all', 'starts-with', 'ends-with', 'regex',
  'is-json', 'contains-json', 'json-schema', 'word-count', 'length', 'latency', 'ttft', 'llm-rubric', 'llm-choice',
  ...GROUNDED_TYPES, 'context-precision',
] as const;
export type AssertionType = (typeof ASSERTION_TYPES)[number];

/** Context (all passages together) above this many characters is not judged: said, not cut. */
export const MAX_CONTEXT_CHARS = 100_000;
