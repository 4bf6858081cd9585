/**
 * The query a retrieval step sends, rendered once per plan before anything is sent:
 * - from LITERAL inputs only — the prompt's sample values, defaults and the test case's (or caller's)
 *   vars as written. A value that is a reference (`${file:…}`, `${env:…}`, or the whole sample read
 *   from a file) is withheld: a file of the repository's choosing (a git-ignored `.env`) must never
 *   travel to a URL of the repository's choosing. A query that uses a withheld value is an error
 *   naming it (rendering it empty would send a silently different query and measure that);
 * - in the render process (render/renderer.ts), under the same deadline, memory and size caps as the
 *   prompt, never in the caller's process;
 * - bounded as a request body (retrievalStep.ts): a huge query is refused, not POSTed.
 */
import type { Prompt } from '../formats/model';
import type { EngineResult } from '../render/engineResult';
import { renderWithEngine } from '../render/renderer';
import { RetrievalError, retrievalRequestBody, type RetrievalStep } from './retrievalStep';

export class RetrievalQueryError extends Error {}

export interface QueryInputs {
  /** Values the query may use. */
  values: Record<string, unknown>;
  /** Inputs whose value is a reference, with the reference as written (for the message). */
  withheld: Map<string, string>;
  /** The prompt's sample is read from a file (`sample: ${file:x.json}`): any input it might hold is withheld. */
  sampleFile?: string;
}

const REFERENCE = /\$\{(?:file|env):/;

/** A value that names a file or an environment variable anywhere in it (resolved or not, it is not the user's literal text). */
function referenceIn(value: unknown): string | undefined {
  if (typeof value === 'string') return REFERENCE.test(value) ? value.trim() : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  const json = JSON.stringify(value);
  return REFERENCE.test(json) ? (/\$\{(?:file|env):[^}]*\}?/.exec(json)?.[0] ?? 'a reference') : undefined;
}

/** The prompt's own values, then the caller's (a test case's vars) over them: literal ones kept, references withheld. */
export function literalQueryInputs(prompt: Prompt, vars: Record<string, unknown>): QueryInputs {
  const values: Record<string, unknown> = {};
  const withheld = new Map<string, string>();
  for (const [name, value] of [...Object.entries(prompt.inputs), ...Object.entries(vars)]) {
    const reference = referenceIn(value);
    if (reference) {
      delete values[name];
      withheld.set(name, reference);
    } else {
      values[name] = value;
      withheld.delete(name);
    }
  }
  return { values, withheld, ...(prompt.inputsFile ? { sampleFile: prompt.inputsFile } : {}) };
}

/** The rendered query; a RetrievalQueryError saying why when it cannot be sent. */
export async function renderRetrievalQuery(step: RetrievalStep, inputs: QueryInputs): Promise<string> {
  const answer = (await renderWithEngine({ engine: 'mustache', template: step.query, data: inputs.values })) as EngineResult;
  if ('error' in answer) throw new RetrievalQueryError(`retrieval.query: ${answer.error}`);
  for (const missing of answer.missing) {
    const name = missing.split('.')[0]!;
    const reference = inputs.withheld.get(name) ?? (inputs.sampleFile ? `the sample file ${inputs.sampleFile}` : undefined);
    if (reference) {
      throw new RetrievalQueryError(
        `retrieval.query uses '${name}', whose value is read from ${reference}: values read from files or the environment are never sent to the search service. ` +
          `Give '${name}' a literal value (a sample value or a test case's vars), or leave it out of the query.`,
      );
    }
  }
  try {
    retrievalRequestBody(answer.text, step.topK);
  } catch (error) {
    if (error instanceof RetrievalError) throw new RetrievalQueryError(error.message);
    throw error;
  }
  return answer.text;
}
