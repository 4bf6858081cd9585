/**
 * Labels files (`NAME.labels.jsonl`, beside the prompt): the team's gold set, one verdict a line —
 * which check, the answer and its variables, the label, who gave it (HUMAN, LLM or CODE) and when.
 * Each line is checked against schemas/labels.schema.json (Ajv); a bad line is a problem with its
 * line number and is left out, never a crash. The file is repository input: read with the workspace
 * rules (a regular file inside the workspace, size-capped) and bounded per line and in lines.
 */
import { basename, dirname, join } from 'node:path';
import Ajv, { type ErrorObject } from 'ajv';
import schemaJson from '../../../schemas/labels.schema.json';
import { findWorkspaceRoot, readWorkspaceFileSync, WorkspaceFileError, type WorkspaceScope } from '../files/workspaceFile';
import { promptStem } from './testCases';

export const LABELS_FILE_MAX_BYTES = 64 * 1024 * 1024;
/** A line longer than this is not parsed (an answer and its context fit well within it). */
export const LABEL_LINE_MAX_CHARS = 1024 * 1024;
/** Lines read at most; the rest are counted as left out. */
export const LABELS_MAX_LINES = 200_000;

export type LabelSource = 'HUMAN' | 'LLM' | 'CODE';

export interface Label {
  check: string;
  vars: Record<string, unknown>;
  answer: string;
  label: string | number;
  source: LabelSource;
  author: string;
  time: string;
  comment?: string;
  correction?: string;
  context?: string;
  revision?: string;
  /** 1-based line in the file. */
  line: number;
}

export interface LabelsRead {
  labels: Label[];
  /** `NAME.labels.jsonl:7: 'source' must be one of HUMAN, LLM, CODE` — one per bad line, in order. */
  problems: string[];
}

/** `homes.prompty` → `homes.labels.jsonl` beside it (the same stem as its tests file). */
export function labelsPathFor(promptFile: string): string {
  return join(dirname(promptFile), `${promptStem(promptFile)}.labels.jsonl`);
}

let validateLine: ReturnType<Ajv['compile']> | undefined;

function validator(): ReturnType<Ajv['compile']> {
  validateLine ??= new Ajv({ allErrors: false, logger: false, strict: true }).compile(schemaJson);
  return validateLine;
}

/** The labels in `text` (the file's content) and a problem for each line that is not a label. */
export function parseLabels(text: string, fileName: string): LabelsRead {
  const labels: Label[] = [];
  const problems: string[] = [];
  const lines = text.split('\n');
  const validate = validator();
  const readable = Math.min(lines.length, LABELS_MAX_LINES);
  for (let i = 0; i < readable; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const at = `${fileName}:${i + 1}`;
    if (line.length > LABEL_LINE_MAX_CHARS) {
      problems.push(`${at}: the line is longer than ${LABEL_LINE_MAX_CHARS.toLocaleString('en-US')} characters; left out`);
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problems.push(`${at}: not JSON (${(error as Error).message}); left out`);
      continue;
    }
    if (!validate(value)) {
      // A label of the wrong kind fails every branch of its anyOf: the anyOf says it in one sentence.
      problems.push(`${at}: ${describe(validate.errors?.find((e) => e.keyword === 'anyOf') ?? validate.errors?.[0])}; left out`);
      continue;
    }
    labels.push({ ...(value as Omit<Label, 'line'>), line: i + 1 });
  }
  const unread = lines.slice(readable).filter((l) => l.trim() !== '').length;
  if (unread > 0) problems.push(`${fileName}: only the first ${LABELS_MAX_LINES.toLocaleString('en-US')} lines are read; ${unread.toLocaleString('en-US')} more left out`);
  return { labels, problems };
}

/** The prompt's labels file, read with the workspace rules; undefined when there is none. */
export function readLabelsFileSync(file: string, scope: WorkspaceScope = {}): LabelsRead | undefined {
  let text: string;
  try {
    text = readWorkspaceFileSync(file, { root: findWorkspaceRoot(file, scope), maxBytes: LABELS_FILE_MAX_BYTES, what: 'labels files' }).toString('utf8');
  } catch (error) {
    if (error instanceof WorkspaceFileError && error.kind === 'not-found') return undefined;
    throw error;
  }
  return parseLabels(text, basename(file));
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'not a label';
  const field = error.instancePath ? `'${error.instancePath.slice(1).split('/')[0]}'` : 'the line';
  switch (error.keyword) {
    case 'required':
      return `'${(error.params as { missingProperty: string }).missingProperty}' is missing`;
    case 'enum':
      return `${field} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'type':
      return `${field} must be ${error.instancePath ? `a${/^[aeiou]/.test(String(error.params.type)) ? 'n' : ''} ${error.params.type}` : 'a JSON object'}`;
    case 'pattern':
      return `${field} must be an ISO 8601 time with its zone, e.g. 2026-12-06T21:04:05Z`;
    case 'anyOf':
      return `${field} must be pass, fail, a category or a number`;
    default:
      return `${field} ${error.message ?? 'is not valid'}`;
  }
}
