import { dotpromptLibraryReadsFrontMatter } from './dotpromptFrontMatter';
import { absentFrontMatter, readFrontMatter, type FrontMatterDoc } from './frontMatterDoc';
import { checkParameterTypes } from './paramTypes';
import type { Prompt, PromptDiagnostic, PromptDoc } from './model';
import { promptNameFromFile } from './names';
import { fileSettings } from './prompty';
import { splitAtMarkers, type RoleMarker } from './roleMarkers';
import { isPlainRecord } from './yaml';

// `{{role "…"}}` starts a message of that role; `{{history}}` inserts the conversation and starts a `model` message (the library's own rule).
const ROLE_TAG = /\{\{\s*(?:role\s+(?:"([^"]*)"|'([^']*)')|(history))\s*\}\}/g;
const COMMENT = /\{\{!--[\s\S]*?--\}\}|\{\{![\s\S]*?\}\}/g;
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
  const { front, sentUntrimmed } = dotpromptFrontMatter(text, sourceStart);
  const { fields, diagnostics } = front;
  const input = fields.map('input');
  const defaults = input?.raw('default');
  const markers = findRoleTags(text, front.bodyStart, diagnostics);
  const split = splitAtMarkers(text, front.bodyStart, text.length, markers, { defaultRole: 'user', diagnostics, rendersToNothing: COMMENT });
  const messages = sentUntrimmed && split.length === 1 && markers.length === 0 ? [{ ...split[0]!, template: text.slice(sourceStart), contentRange: { start: sourceStart, end: text.length } }] : split;
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
    body: { engine: 'dotprompt', sourceStart, bodyStart: front.bodyStart, markers, defaultRole: 'user' },
    ...fileSettings(fields),
  };
  return { format: 'dotprompt', prompts: [prompt], diagnostics };
}

/**
 * The front matter as the `dotprompt` library reads it. Where the shared fence reading finds one and
 * the library does not (a closing `---` with no line break after it, `...`, `---x`, an empty one) or
 * cannot parse its YAML, the library sends the whole file as prompt text, YAML included (one user
 * message unless role markers split it): so does the count, and a diagnostic says why. It trims the
 * text only after a YAML error; a file with no front matter is sent untrimmed (`sentUntrimmed`).
 */
function dotpromptFrontMatter(text: string, sourceStart: number): { front: FrontMatterDoc; sentUntrimmed: boolean } {
  const front = readFrontMatter(text, sourceStart);
  const opensFrontMatter = text.startsWith('---', text.charCodeAt(sourceStart) === 0xfeff ? sourceStart + 1 : sourceStart);
  // None found: the body starts after the licence lines (the shared reading gives 0 for a front matter never closed).
  if (front.bodyStart <= sourceStart || !opensFrontMatter) return { front: front.bodyStart < sourceStart ? { ...front, bodyStart: sourceStart } : front, sentUntrimmed: true };
  const libraryReads = dotpromptLibraryReadsFrontMatter(text, sourceStart);
  const yamlError = front.diagnostics.find((d) => d.code === 'parse-error');
  if (libraryReads && !yamlError) return { front, sentUntrimmed: false };
  const absent = absentFrontMatter(sourceStart);
  const sent = 'it sends the whole file, YAML included, as prompt text, and that is what is counted';
  if (libraryReads) {
    // Its YAML does not parse: the errors stay, the first says what the library then does.
    for (const d of front.diagnostics.filter((d) => d.code === 'parse-error')) {
      absent.diagnostics.push(d === yamlError ? { ...d, message: `${d.message}. With its YAML unreadable, Dotprompt's JavaScript library (Genkit for Node) reads no front matter: ${sent}.` } : d);
    }
    return { front: absent, sentUntrimmed: false };
  }
  // The line the shared reading took for the closing fence.
  const fenceEnd = text.slice(0, front.bodyStart).replace(/\r?\n$|\r$/, '').length;
  const fenceStart = text.lastIndexOf('\n', fenceEnd - 1) + 1;
  const lineNumber = text.slice(0, fenceStart).split('\n').length;
  const atEnd = front.bodyStart >= text.length && /^---[ \t]*$/.test(text.slice(fenceStart));
  absent.diagnostics.push({
    range: { start: fenceStart, end: fenceEnd },
    severity: 'warning',
    code: atEnd ? 'front-matter-end' : 'unterminated-front-matter',
    message: atEnd
      ? `The closing --- has no line break after it, so Dotprompt's JavaScript library (Genkit for Node) reads no front matter: ${sent}. End the line to make it front matter.`
      : `The front matter is not closed for Dotprompt's JavaScript library (Genkit for Node): line ${lineNumber} has \`${text.slice(fenceStart, fenceEnd).slice(0, 40)}\`, and it needs \`---\` alone, followed by a line break. It reads no front matter: ${sent}.`,
  });
  return { front: absent, sentUntrimmed: true };
}

function findRoleTags(text: string, bodyStart: number, diagnostics: PromptDiagnostic[]): RoleMarker[] {
  const markers: RoleMarker[] = [];
  ROLE_TAG.lastIndex = bodyStart;
  for (let match = ROLE_TAG.exec(text); match; match = ROLE_TAG.exec(text)) {
    const range = { start: match.index, end: match.index + match[0].length };
    if (match[3]) {
      markers.push({ role: 'model', range, sendsMessages: true });
      continue;
    }
    const role = (match[1] ?? match[2] ?? '').trim();
    if (!DOTPROMPT_ROLES.includes(role)) {
      diagnostics.push({ range, severity: 'warning', code: 'unknown-role', message: `Unknown role '${role}'; Dotprompt roles are ${DOTPROMPT_ROLES.join(', ')}.` });
    }
    markers.push({ role, range });
  }
  return markers;
}
