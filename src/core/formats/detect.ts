import { dotpromptSourceStart, parseDotprompt } from './dotprompt';
import { splitFrontMatter } from './frontMatter';
import { parseGithubPromptYaml } from './githubPromptYaml';
import type { PromptDoc, PromptFormat } from './model';
import { parsePlainText } from './plainText';
import { parsePrompty } from './prompty';
import { parseVscodePromptMd } from './vscodePromptMd';

const PARSERS: Record<PromptFormat, (text: string, fileName: string) => PromptDoc> = {
  prompty: parsePrompty,
  'github-prompt-yaml': parseGithubPromptYaml,
  dotprompt: parseDotprompt,
  'vscode-prompt-md': parseVscodePromptMd,
  text: parsePlainText,
};

const SNIFF_LIMIT = 4096;

/**
 * Decides a file's format from its name and, where the name is ambiguous (`.prompt` is used by
 * several tools; user globs can match anything), from its first few kilobytes.
 */
export function detectFormat(fileName: string, text: string): PromptFormat {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.prompty')) return 'prompty';
  if (lower.endsWith('.prompt.yml') || lower.endsWith('.prompt.yaml')) return 'github-prompt-yaml';
  if (lower.endsWith('.prompt.md')) return 'vscode-prompt-md';
  if (lower.endsWith('.prompt.txt')) return 'text';
  return sniffFormat(text.slice(0, SNIFF_LIMIT), lower.endsWith('.prompt'));
}

function sniffFormat(head: string, dotPromptName: boolean): PromptFormat {
  const front = splitFrontMatter(head, dotPromptName ? dotpromptSourceStart(head) : 0);
  const yaml = front.yaml?.text ?? '';
  if (front.yaml) {
    if (/^model:\s*\n(\s+)(api|configuration|parameters|id|provider|connection|options):/m.test(yaml) || /^sample:/m.test(yaml)) return 'prompty';
    if (/^(input|output|config):/m.test(yaml) || /\{\{\s*role\s/.test(head)) return 'dotprompt';
    if (/^(tools|mode|agent):/m.test(yaml) && !dotPromptName) return 'vscode-prompt-md';
    return dotPromptName ? 'dotprompt' : 'text';
  }
  if (/\{\{\s*role\s/.test(head)) return 'dotprompt';
  if (/^messages:\s*$/m.test(head) && /^\s*-\s*role:/m.test(head)) return 'github-prompt-yaml';
  return 'text';
}

/** Parses a file in its detected (or given) format. */
export function parsePromptFile(fileName: string, text: string, format: PromptFormat = detectFormat(fileName, text)): PromptDoc {
  const doc = PARSERS[format](text, fileName);
  doc.diagnostics.sort((a, b) => a.range.start - b.range.start || a.range.end - b.range.end);
  return doc;
}
