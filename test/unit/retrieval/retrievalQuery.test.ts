/**
 * The retrieval query is rendered from literal inputs only (issue 30): a value that names a file or
 * an environment variable is withheld, and a query that needs one is an error naming it; a literal
 * value given by the caller (a test case's vars) takes its place.
 */
import { describe, expect, it } from 'vitest';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { literalQueryInputs, renderRetrievalQuery, RetrievalQueryError } from '../../../src/core/retrieval/retrievalQuery';
import type { RetrievalStep } from '../../../src/core/retrieval/retrievalStep';

const prompt = (sample: string) => parsePromptFile('rag.prompty', `---\nname: rag\nsample:\n${sample}---\nuser:\n{{question}}\n`).prompts[0]!;
const step = (query: string): RetrievalStep => ({ url: 'http://127.0.0.1:1/search', query, into: 'context', topK: 3, timeoutMs: 1000 });

describe('the literal inputs of a retrieval query', () => {
  it('keeps literal values, withholds every reference (whole, partial or nested), and lets a literal var replace one', () => {
    const inputs = literalQueryInputs(prompt('  question: homes\n  notes: ${file:.env}\n  key: "${env:OPENAI_API_KEY}"\n  mixed: "see ${file:a.txt}"\n  nested: { a: { b: "${file:b.txt}" } }\n  n: 3\n'), { key: 'a literal key' });
    expect(inputs.values).toEqual({ question: 'homes', n: 3, key: 'a literal key' });
    expect([...inputs.withheld.keys()].sort()).toEqual(['mixed', 'nested', 'notes']);
    expect(literalQueryInputs(prompt('  question: homes\n'), { question: '${file:.env}' }).withheld.get('question')).toBe('${file:.env}');
  });

  it('renders with literal values; a query that uses a withheld value (or a sample read from a file) is an error naming it', async () => {
    const inputs = literalQueryInputs(prompt('  question: homes\n  notes: ${file:.env}\n'), {});
    expect(await renderRetrievalQuery(step('listings {{question}}'), inputs)).toBe('listings homes');
    for (const query of ['{{question}} {{notes}}', '{{#notes}}x{{/notes}}', '{{^notes}}none{{/notes}}', '{{notes.length}}']) {
      await expect(renderRetrievalQuery(step(query), inputs)).rejects.toThrow(new RetrievalQueryError("retrieval.query uses 'notes', whose value is read from ${file:.env}: values read from files or the environment are never sent to the search service. Give 'notes' a literal value (a sample value or a test case's vars), or leave it out of the query."));
    }
    const fromFile = { values: {}, withheld: new Map<string, string>(), sampleFile: '${file:sample.json}' };
    await expect(renderRetrievalQuery(step('{{question}}'), fromFile)).rejects.toThrow("whose value is read from the sample file ${file:sample.json}");
  });
});
