import type { PromptDoc } from './model';
import { promptNameFromFile } from './names';
import { splitAtMarkers } from './roleMarkers';

/** Plain prompt text: the whole file is one user message. */
export function parsePlainText(text: string, fileName: string): PromptDoc {
  const diagnostics: PromptDoc['diagnostics'] = [];
  const start = text.startsWith('\uFEFF') ? 1 : 0;
  const messages = splitAtMarkers(text, start, text.length, [], { defaultRole: 'user', diagnostics });
  return {
    format: 'text',
    prompts: [
      {
        name: promptNameFromFile(fileName),
        range: { start: 0, end: text.length },
        params: {},
        messages,
        inputs: {},
        tests: [],
        evaluators: [],
        templateSyntax: 'mustache',
      },
    ],
    diagnostics,
  };
}
