/** A prompt file named on the command line or by an editor command, read as any file a repository names (workspaceFile.ts) and parsed. */
import { describeReadError, readPromptFile } from '../files/workspaceFile';
import { decodePromptBytes } from './decode';
import { detectFormat, parsePromptFile } from './detect';
import type { Prompt, PromptFormat } from './model';

/** The file's prompts (all, or the one named) with the text and format they were read from, or why not — a message after the file's name. */
export async function promptsOf(file: string, promptName: string | undefined): Promise<{ prompts: Prompt[]; text: string; format: PromptFormat } | { error: string }> {
  let text: string;
  try {
    const decoded = decodePromptBytes(await readPromptFile(file));
    if (!decoded.ok) return { error: `${file}: ${decoded.reason}` };
    text = decoded.text;
  } catch (error) {
    return { error: `${file}: ${describeReadError(error)}` };
  }
  const format = detectFormat(file, text);
  const doc = parsePromptFile(file, text, format);
  const prompts = promptName ? doc.prompts.filter((p) => p.name === promptName) : doc.prompts;
  return prompts.length > 0 ? { prompts, text, format } : { error: `${file} has no prompt${promptName ? ` named '${promptName}'` : ''}.` };
}
