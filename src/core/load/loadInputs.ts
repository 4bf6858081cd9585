/**
 * What a load test sends: the prompt's sample inputs (default), its test cases' inputs cycled
 * (`--inputs tests`), or the inputs in a JSON Lines file the user names (`--inputs FILE.jsonl`: one
 * object of variable values per line, at most 10,000 lines and 16 MB — a regular file, read bounded).
 */
import { readUserFile } from '../files/workspaceFile';

export const INPUTS_FILE_MAX_BYTES = 16 * 1024 * 1024;
export const INPUTS_MAX_LINES = 10_000;

export class LoadInputsError extends Error {}

export async function readInputsFile(file: string): Promise<Record<string, unknown>[]> {
  const text = (await readUserFile(file, INPUTS_FILE_MAX_BYTES, 'load inputs')).toString('utf8');
  const inputs: Record<string, unknown>[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    if (inputs.length >= INPUTS_MAX_LINES) throw new LoadInputsError(`${file}: more than ${INPUTS_MAX_LINES} lines of inputs; give fewer.`);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new LoadInputsError(`${file}:${index + 1}: not JSON — each line is one object of variable values, e.g. {"city": "Lyon"}.`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new LoadInputsError(`${file}:${index + 1}: expected an object of variable values, e.g. {"city": "Lyon"}.`);
    // Prototype-less: keys such as __proto__ stay plain variable names.
    inputs.push(Object.assign(Object.create(null) as Record<string, unknown>, value));
  }
  if (inputs.length === 0) throw new LoadInputsError(`${file}: no inputs in it.`);
  return inputs;
}
