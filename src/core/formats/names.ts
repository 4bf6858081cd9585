const PROMPT_SUFFIXES = ['.prompt.yaml', '.prompt.yml', '.prompt.md', '.prompt.txt', '.prompty', '.prompt', '.txt', '.md', '.yaml', '.yml'];

/** A prompt's display name when the file does not give one: the file name without its prompt suffix. */
export function promptNameFromFile(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const lower = base.toLowerCase();
  for (const suffix of PROMPT_SUFFIXES) {
    if (lower.endsWith(suffix) && lower.length > suffix.length) return base.slice(0, base.length - suffix.length);
  }
  return base || 'prompt';
}
