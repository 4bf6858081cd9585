/** File patterns of the formats Prompt Insight understands; user globs (`promptInsight.files.include`) add to them. */
export const BUILT_IN_PROMPT_GLOBS = ['**/*.prompty', '**/*.prompt', '**/*.prompt.yml', '**/*.prompt.yaml', '**/*.prompt.md', '**/*.prompt.txt'];

/** Plain filters, usable both as the client's document selector and with `vscode.languages.match`. */
export function promptDocumentSelector(userGlobs: readonly string[]): { scheme: string; pattern: string }[] {
  const globs = [...BUILT_IN_PROMPT_GLOBS, ...userGlobs.filter((g) => typeof g === 'string' && g.trim() !== '')];
  return globs.flatMap((pattern) => [
    { scheme: 'file', pattern },
    { scheme: 'untitled', pattern },
    { scheme: 'vscode-remote', pattern },
  ]);
}
