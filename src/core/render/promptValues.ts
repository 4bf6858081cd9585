/**
 * The values a prompt is rendered with: its samples and defaults (files they name read inside the
 * workspace `root`, render/references.ts), then the caller's.
 */
import type { Prompt } from '../formats/model';
import { resolveFileValues, type ReferenceNote } from './references';

export function promptValues(prompt: Prompt, promptPath: string | undefined, vars: Record<string, unknown> = {}, root?: string): { values: Record<string, unknown>; notes: ReferenceNote[] } {
  const notes: ReferenceNote[] = [];
  let sample: Record<string, unknown> = {};
  if (prompt.inputsFile) {
    const loaded = resolveFileValues(promptPath, { sample: prompt.inputsFile }, root);
    notes.push(...loaded.notes);
    const value = loaded.values.sample;
    if (value && typeof value === 'object' && !Array.isArray(value)) sample = value as Record<string, unknown>;
    else if (loaded.notes.length === 0) notes.push({ message: `sample ${prompt.inputsFile} is not a JSON object of input values` });
  }
  const resolved = resolveFileValues(promptPath, { ...prompt.inputs, ...sample }, root);
  notes.push(...resolved.notes);
  return { values: { ...resolved.values, ...vars }, notes };
}
