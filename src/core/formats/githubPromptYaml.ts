import type { YAMLMap } from 'yaml';
import { FieldReader, describe } from './fields';
import type { Prompt, PromptDiagnostic, PromptDoc, PromptMessage, PromptTestCase } from './model';
import { promptNameFromFile } from './names';
import { checkParameterTypes } from './paramTypes';
import { fileSettings } from './prompty';
import { isPlainRecord, isVerbatimScalar, mapNode, nodeRange, parseYaml, seqItems } from './yaml';

const GITHUB_ROLES = ['system', 'user', 'assistant', 'developer'];

/** Parses a GitHub Models `.prompt.yml` file. */
export function parseGithubPromptYaml(text: string, fileName: string): PromptDoc {
  const parsed = parseYaml(text, 0);
  const diagnostics = [...parsed.diagnostics];
  const whole = { start: 0, end: text.length };
  if (parsed.value === undefined && diagnostics.length > 0) return { format: 'github-prompt-yaml', prompts: [], diagnostics };
  if (!isPlainRecord(parsed.value)) {
    diagnostics.push({
      range: { start: 0, end: Math.min(text.length, 1) },
      severity: 'error',
      code: 'invalid-field',
      message: `A .prompt.yml file should be a YAML mapping with 'model' and 'messages', not ${describe(parsed.value)}.`,
    });
    return { format: 'github-prompt-yaml', prompts: [], diagnostics };
  }
  const root = mapNode(parsed.doc?.contents);
  const fields = new FieldReader(parsed.value, root, 0, whole, diagnostics);
  fields.string('description');
  const messages = readMessages(text, fields, diagnostics);
  if (!fields.has('messages')) {
    diagnostics.push({ range: { start: 0, end: Math.min(text.length, 1) }, severity: 'error', code: 'invalid-field', message: "'messages' is missing: a .prompt.yml file needs a list of {role, content}." });
  }
  const tests = readTestData(fields);
  const evaluators = fields.list('evaluators') ?? [];
  const firstRow = tests[0]?.vars ?? {};
  const responseFormat = fields.raw('responseFormat');
  const modelParameters = fields.map('modelParameters');
  checkParameterTypes(modelParameters, 'modelParameters');
  const prompt: Prompt = {
    name: fields.string('name') ?? promptNameFromFile(fileName),
    range: whole,
    ...(fields.string('model') ? { model: fields.string('model') } : {}),
    params: modelParameters?.data ?? {},
    messages,
    inputs: firstRow,
    tests,
    evaluators,
    ...(responseFormat !== undefined ? { responseFormat: { type: responseFormat, jsonSchema: fields.raw('jsonSchema') } } : {}),
    templateSyntax: 'gh-models',
    ...fileSettings(fields),
  };
  return { format: 'github-prompt-yaml', prompts: [prompt], diagnostics };
}

function readMessages(text: string, fields: FieldReader, diagnostics: PromptDiagnostic[]): PromptMessage[] {
  const list = fields.list('messages');
  if (!list) return [];
  const nodes = seqItems(fields.childNode('messages'));
  const messages: PromptMessage[] = [];
  list.forEach((item, index) => {
    const node = nodes[index];
    const itemRange = nodeRange(node, 0, fields.rangeOf('messages'));
    if (!isPlainRecord(item)) {
      diagnostics.push({ range: itemRange, severity: 'error', code: 'invalid-field', message: `messages[${index}] should be a mapping with 'role' and 'content', not ${describe(item)}.` });
      return;
    }
    const message = new FieldReader(item, node as YAMLMap, 0, itemRange, diagnostics, `messages[${index}].`);
    const role = message.string('role');
    const content = message.string('content');
    if (!role) {
      diagnostics.push({ range: itemRange, severity: 'error', code: 'invalid-field', message: `messages[${index}] has no 'role' (system, user or assistant).` });
      return;
    }
    if (!GITHUB_ROLES.includes(role)) {
      diagnostics.push({ range: message.rangeOf('role'), severity: 'warning', code: 'unknown-role', message: `Unknown role '${role}'; GitHub Models accepts ${GITHUB_ROLES.join(', ')}.` });
    }
    const contentNode = message.childNode('content');
    const contentRange = nodeRange(contentNode, 0, itemRange);
    if (content === undefined || content.trim() === '') {
      // gh-models sends the message anyway, with empty content (its role still costs tokens).
      diagnostics.push({ range: content === undefined ? itemRange : contentRange, severity: 'warning', code: 'empty-message', message: `The ${role} message has no content; it is sent empty.` });
    }
    messages.push({ role, template: content ?? '', range: itemRange, contentRange, contentIsVerbatim: content !== undefined && isVerbatimScalar(contentNode, text, 0) });
  });
  return messages;
}

function readTestData(fields: FieldReader): PromptTestCase[] {
  const rows = fields.list('testData');
  if (!rows) return [];
  const nodes = seqItems(fields.childNode('testData'));
  const tests: PromptTestCase[] = [];
  rows.forEach((row, index) => {
    const range = nodeRange(nodes[index], 0, fields.rangeOf('testData'));
    if (!isPlainRecord(row)) {
      fields.report('testData', `testData[${index}] should be a mapping of variable values, not ${describe(row)}.`);
      return;
    }
    const { expected, ...vars } = row;
    tests.push({ vars, ...(expected !== undefined ? { expected } : {}), range });
  });
  return tests;
}
