/** File patterns of the formats Prompt Insight understands; user globs (`promptInsight.files.include`) add to them. */
export const BUILT_IN_PROMPT_GLOBS = ['**/*.prompty', '**/*.prompt', '**/*.prompt.yml', '**/*.prompt.yaml', '**/*.prompt.md', '**/*.prompt.txt'];

/** Tests files beside the prompts: the language server checks them against their schema, completes and explains them. */
export const TESTS_FILE_GLOBS = ['**/*.tests.yaml', '**/*.tests.yml'];

/** Plain filters, usable both as the client's document selector and with `vscode.languages.match`. */
export function promptDocumentSelector(userGlobs: readonly string[]): { scheme: string; pattern: string }[] {
  return filtersOf([...BUILT_IN_PROMPT_GLOBS, ...userGlobs.filter((g) => typeof g === 'string' && g.trim() !== '')]);
}

/** What the language server is given: prompt files and tests files. */
export function serverDocumentSelector(userGlobs: readonly string[]): { scheme: string; pattern: string }[] {
  return [...promptDocumentSelector(userGlobs), ...filtersOf(TESTS_FILE_GLOBS)];
}

function filtersOf(globs: readonly string[]): { scheme: string; pattern: string }[] {
  return globs.flatMap((pattern) => [
    { scheme: 'file', pattern },
    { scheme: 'untitled', pattern },
    { scheme: 'vscode-remote', pattern },
  ]);
}
