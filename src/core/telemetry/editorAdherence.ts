/**
 * Production adherence in the editor (hover and Production page): the answers each version received,
 * read from the trace files in the same pass as the figures, scored with the checks of the tests file
 * on disk that hold for any answer and need no judge — the editor never sends production answers to a
 * judge on its own; `prod --score --judge-endpoint` does that when asked. Bounded like `prod --score`:
 * a seeded sample of at most DEFAULT_SCORED_PER_VERSION answers per version (as `prod --score`).
 */
import { loadTestSuite } from '../adherence/testCases';
import type { Assertion } from '../adherence/testCases';
import { readPromptFile, readTestsFileSync } from '../files/workspaceFile';
import { decodePromptBytes } from '../formats/decode';
import { detectFormat, parsePromptFile } from '../formats/detect';
import { AnswerSample, DEFAULT_SCORED_PER_VERSION, referenceFreeChecks, scoreAnswers } from './prodAdherence';
import type { ProdReport } from './prodReport';

export interface EditorChecks {
  /** Per prompt name, the checks every production answer is held to (absent: none). */
  byPrompt: Map<string, Assertion[]>;
  /** Checks left out, with why (said as a note on the source). */
  leftOut: string[];
}

/** The tests file's reference-free, judge-free checks for each prompt of the file; a file that cannot be read gives none. */
export async function editorChecks(root: string, file: string): Promise<EditorChecks> {
  const byPrompt = new Map<string, Assertion[]>();
  const leftOut = new Set<string>();
  try {
    const scope = { workspaceFolders: [root] };
    const decoded = decodePromptBytes(await readPromptFile(file, scope));
    if (!decoded.ok) return { byPrompt, leftOut: [] };
    const format = detectFormat(file, decoded.text);
    for (const prompt of parsePromptFile(file, decoded.text, format).prompts) {
      const found = referenceFreeChecks(loadTestSuite(file, decoded.text, format, prompt, (path) => readTestsFileSync(path, scope)), false);
      found.leftOut.forEach((why) => leftOut.add(why.replace('--judge-endpoint and --judge-model', 'prod --judge-endpoint scores these')));
      if (found.checks.length) byPrompt.set(prompt.name, found.checks);
    }
  } catch {
    // A tests file the workspace rules refuse, or a file gone since: the figures still show, without adherence.
  }
  return { byPrompt, leftOut: [...leftOut] };
}

/** A sample for the read when there are checks to score (else nothing is held). */
export function editorAnswerSample(checks: EditorChecks, window: { sinceMs: number; untilMs: number }): AnswerSample | null {
  return checks.byPrompt.size ? new AnswerSample(DEFAULT_SCORED_PER_VERSION, window) : null;
}

/** Each version's sampled answers scored into the report (`versions[].adherence`). */
export async function scoreVersions(report: ProdReport, sample: AnswerSample, checks: EditorChecks): Promise<void> {
  for (const v of report.versions) {
    const forPrompt = v.promptName === null ? [...checks.byPrompt.values()][0] : checks.byPrompt.get(v.promptName);
    if (forPrompt) v.adherence = await scoreAnswers(sample.answersOf(v.promptName, v.version), forPrompt);
  }
}
