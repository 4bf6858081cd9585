import type { TemplateSyntax } from './model';

/** A placeholder found in a message template; offsets are relative to the template string. */
export interface Placeholder {
  name: string;
  start: number;
  end: number;
  /** Filled by VS Code at run time (`${selection}`), not by sample values. */
  runtime: boolean;
}

export interface RenderedTemplate {
  text: string;
  unresolved: Placeholder[];
  /** Control tags (`{% if %}`, `{{#each}}`) are kept as written; counts are then approximate. */
  unevaluatedLogic: boolean;
}

const MUSTACHE_TAG = /\{\{\{?\s*([^{}]*?)\s*\}?\}\}|\{#[\s\S]*?#\}|\{%[\s\S]*?%\}/g;
const VSCODE_VARIABLE = /\$\{(input:([A-Za-z_][\w-]*)(?::[^}]*)?|[A-Za-z][\w]*)\}/g;
const PATH = /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*|\[\d+\])*$/;
const VSCODE_RUNTIME_VARIABLES = new Set([
  'selection', 'selectedText', 'file', 'fileBasename', 'fileDirname', 'fileBasenameNoExtension',
  'workspaceFolder', 'workspaceFolderBasename',
]);

/** Substitutes variables from `vars`; whatever cannot be resolved is kept as written and reported. */
export function renderTemplate(template: string, syntax: TemplateSyntax, vars: Record<string, unknown>): RenderedTemplate {
  if (syntax === 'none') return { text: template, unresolved: [], unevaluatedLogic: false };
  if (syntax === 'vscode') return renderVscode(template, vars);
  if (syntax === 'gh-models') return renderGhModels(template, vars);
  return renderMustacheFamily(template, syntax, vars);
}

function renderMustacheFamily(template: string, syntax: TemplateSyntax, vars: Record<string, unknown>): RenderedTemplate {
  const unresolved: Placeholder[] = [];
  let unevaluatedLogic = false;
  const text = template.replace(MUSTACHE_TAG, (tag: string, inner: string | undefined, offset: number) => {
    if (tag.startsWith('{#')) return ''; // Jinja comment: never sent
    if (tag.startsWith('{%')) {
      unevaluatedLogic = true;
      return tag;
    }
    const expression = (inner ?? '').trim();
    if (expression.startsWith('!')) return ''; // Handlebars comment
    if (/^[#/^>]|^else\b/.test(expression)) {
      // Handlebars block helpers: the tag itself is not sent; both branches are counted.
      unevaluatedLogic = true;
      return '';
    }
    const name = (syntax === 'jinja' ? expression.split('|')[0]! : expression).trim();
    if (!PATH.test(name)) {
      unevaluatedLogic = true;
      return tag;
    }
    const value = lookup(vars, name);
    if (value === undefined) {
      unresolved.push({ name, start: offset, end: offset + tag.length, runtime: false });
      return tag;
    }
    return stringify(value);
  });
  return { text, unresolved, unevaluatedLogic };
}

/**
 * gh-models' rule (pkg/prompt TemplateString): each top-level value replaces the exact text
 * `{{name}}` (no spaces, no paths); anything else, `{{ name }}` included, is sent as written.
 */
const GH_MODELS_TAG = /\{\{([^{}\s]+)\}\}/g;

function renderGhModels(template: string, vars: Record<string, unknown>): RenderedTemplate {
  const unresolved: Placeholder[] = [];
  const text = template.replace(GH_MODELS_TAG, (tag: string, name: string, offset: number) => {
    if (!Object.prototype.hasOwnProperty.call(vars, name)) {
      if (PATH.test(name)) unresolved.push({ name, start: offset, end: offset + tag.length, runtime: false });
      return tag;
    }
    return stringify(vars[name]);
  });
  return { text, unresolved, unevaluatedLogic: false };
}

function renderVscode(template: string, vars: Record<string, unknown>): RenderedTemplate {
  const unresolved: Placeholder[] = [];
  const text = template.replace(VSCODE_VARIABLE, (tag: string, body: string, inputName: string | undefined, offset: number) => {
    const name = inputName ?? body;
    if (!inputName && !VSCODE_RUNTIME_VARIABLES.has(body)) return tag;
    const value = inputName ? lookup(vars, inputName) : undefined;
    if (value === undefined) {
      unresolved.push({ name, start: offset, end: offset + tag.length, runtime: true });
      return tag;
    }
    return stringify(value);
  });
  return { text, unresolved, unevaluatedLogic: false };
}

function lookup(vars: Record<string, unknown>, path: string): unknown {
  let current: unknown = vars;
  for (const part of path.split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== '')) {
    if (typeof current !== 'object' || current === null) return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return '';
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
