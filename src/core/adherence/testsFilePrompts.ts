/**
 * The prompt files a tests file belongs to: those beside it whose sidecar it is (`homes.prompty`,
 * `homes.prompt.md` … → `homes.tests.yaml`). A `.prompt.yml` carries its own testData and evaluators,
 * so it is never one of them.
 */
import { sidecarPathFor } from './testCases';

const PROMPT_FILE = /\.(prompty|prompt|prompt\.md|prompt\.txt)$/i;

/** Of the names in the tests file's folder, the prompt files that read this tests file, sorted. */
export function promptsOfTestsFile(testsFileName: string, namesInFolder: readonly string[]): string[] {
  return namesInFolder.filter((name) => PROMPT_FILE.test(name) && sidecarPathFor(name) === testsFileName).sort();
}
