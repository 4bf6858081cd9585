/**
 * Files a flag names — reports (`--report`, `--junit`), exports (`--out`), rules (`--prometheus-rules`),
 * GitHub's job summary: checked before any work is done for them (an hour of runs is not spent on a
 * report that cannot be written), then written by core/files/fileWrite.ts's rules, since CI runs
 * these commands inside a pull request's checkout, where a committed link may wait at the name.
 */
import { appendOutputFile, checkOutputTarget, writeOutputFile } from '../core/files/fileWrite';

export interface OutputFile {
  path: string;
  /** For messages: "the JUnit report (--junit)". */
  what: string;
}

/** Throws FileWriteError for the first target that would be refused (a link, a non-regular file, a linked folder, .git). */
export function checkOutputFiles(files: readonly (OutputFile | undefined)[]): void {
  for (const file of files) if (file) checkOutputTarget(file.path, { what: file.what });
}

export function writeOutput(file: OutputFile, text: string): void {
  writeOutputFile(file.path, text, { what: file.what });
}

export function appendOutput(file: OutputFile, text: string): void {
  appendOutputFile(file.path, text, { what: file.what });
}

/** The output a valued flag names, or undefined when the flag is absent. */
export function outputFlag(path: string | undefined, what: string): OutputFile | undefined {
  return path ? { path, what } : undefined;
}
