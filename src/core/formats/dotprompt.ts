import { readFrontMatter } from './frontMatterDoc';
import { checkParameterTypes } from './paramTypes';
import type { Prompt, PromptDiagnostic, PromptDoc } from './model';
import { promptNameFromFile } from './names';
import { fileSettings } from './prompty';
import { splitAtMarkers, type RoleMarker } from './roleMarkers';
import { isPlainRecord } from './yaml';

const ROLE_TAG = /\{\{\s*role\s+(?:"([^"]*)"|'([^']*)')\s*\}\}/g;
// Dotprompt (its repository's parser since 2026) allows '#' licence lines and blank lines before the front matter.
const LICENSE_HEADER = /^(?:(?:#[^\n]*|[ \t]*)\n)*(?=---)/;
const DOTPROMPT_ROLES = ['system', 'user', 'model', 'assistant', 'tool'];

/** Parses a Dotprompt `.prompt` file: YAML front matter and a Handlebars body with `{{role "…"}}` markers. */
/** Where the Dotprompt source starts: after `#` licence lines and blank lines that precede front matter. */
export function dotpromptSourceStart(text: string): number {
  return LICENSE_HEADER.exec(text)?.[0].length ?? 0;
}

export function parseDotprompt(text: string, fileName: string): PromptDoc {
  const sourceStart = dotpromptSourceStart(text);
  const front = readFrontMatter(text, sourceStart);
  const { fields, diagnostics } = front;
  const input = fields.map('input');
  const defaults = input?.raw('default');
  if (front.bodyStart >= text.length && /^---[ \t]*\r?\n/.test(text.slice(sourceStart)) && /\n---[ \t]*$/.test(text)) {
    diagnostics.push({
      range: { start: text.lastIndexOf('---'), end: text.length },
      severity: 'warning',
      code: 'front-matter-end',
      message: "The closing --- has no line break after it. Dotprompt's JavaScript library (Genkit for Node) then reads no front matter and sends the whole file, front matter included, as the prompt; its Python library and Prompt Insight read it as front matter. End the line.",
    });
  }
  const markers = findRoleTags(text, front.bodyStart, diagnostics);
  const messages = splitAtMarkers(text, front.bodyStart, text.length, markers, { defaultRole: 'user', diagnostics });
  const output = fields.map('output');
  const config = fields.map('config');
  checkParameterTypes(config, 'config');
  const prompt: Prompt = {
    name: fields.string('name') ?? promptNameFromFile(fileName),
    range: { start: 0, end: text.length },
    ...(fields.string('model') ? { model: fields.string('model') } : {}),
    params: config?.data ?? {},
    messages,
    inputs: isPlainRecord(defaults) ? defaults : {},
    tests: [],
    evaluators: [],
    ...(output ? { responseFormat: output.data } : {}),
    templateSyntax: 'handlebars',
    body: { engine: 'dotprompt', sourceStart: front.bodyStart > sourceStart ? sourceStart : 0, bodyStart: front.bodyStart, markers, defaultRole: 'user' },
    ...fileSettings(fields),
  };
  return { format: 'dotprompt', prompts: [prompt], diagnostics };
}

function findRoleTags(text: string, bodyStart: number, diagnostics: PromptDiagnostic[]): RoleMarker[] {
  const markers: RoleMarker[] = [];
  ROLE_TAG.lastIndex = bodyStart;
  for (let match = ROLE_TAG.exec(text); match; match = ROLE_TAG.exec(text)) {
    const role = (match[1] ?? match[2] ?? '').trim();
    const range = { start: match.index, end: match.index + match[0].length };
    if (!DOTPROMPT_ROLES.includes(role)) {
      diagnostics.push({ range, severity: 'warning', code: 'unknown-role', message: `Unknown role '${role}'; Dotprompt roles are ${DOTPROMPT_ROLES.join(', ')}.` });
    }
    markers.push({ role, range });
  }
  return markers;
}
