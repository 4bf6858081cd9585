import { readFrontMatter } from './frontMatterDoc';
import type { Prompt, PromptDoc } from './model';
import { promptNameFromFile } from './names';
import { fileSettings } from './prompty';
import { splitAtMarkers } from './roleMarkers';

/** Parses a VS Code `*.prompt.md` file: front matter (description, name, model, agent/mode, tools) and one user message. */
export function parseVscodePromptMd(text: string, fileName: string): PromptDoc {
  const front = readFrontMatter(text);
  const { fields, diagnostics } = front;
  fields.string('description');
  const mode = fields.string('agent') ?? fields.string('mode');
  const tools = fields.list('tools');
  const messages = splitAtMarkers(text, front.bodyStart, text.length, [], { defaultRole: 'user', diagnostics });
  if (messages.length === 0) {
    diagnostics.push({ range: { start: front.bodyStart, end: text.length }, severity: 'warning', code: 'empty-message', message: 'The prompt body is empty; write the instructions below the front matter.' });
  }
  const prompt: Prompt = {
    name: fields.string('name') ?? promptNameFromFile(fileName),
    range: { start: 0, end: text.length },
    ...(fields.string('model') ? { model: fields.string('model') } : {}),
    params: { ...(mode ? { mode } : {}), ...(tools ? { tools } : {}) },
    messages,
    inputs: {},
    tests: [],
    evaluators: [],
    templateSyntax: 'vscode',
    ...fileSettings(fields),
  };
  return { format: 'vscode-prompt-md', prompts: [prompt], diagnostics };
}
