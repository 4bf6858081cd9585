import { SCENARIOS } from '../rollout/scenario';
import { objectivesFromBlock } from '../rollout/slo';
import type { FieldReader } from './fields';
import { readFrontMatter } from './frontMatterDoc';
import { checkParameterTypes } from './paramTypes';
import type { Prompt, PromptDiagnostic, PromptDoc } from './model';
import { promptNameFromFile } from './names';
import { KNOWN_ROLES, nearMissRole, type RoleMarker } from './roleMarkers';
import { promptySpans, trimmedBody } from './promptyMessages';
import type { PromptMessage } from './model';
import { isPlainRecord } from './yaml';

// Prompty's role lines: `system:`, `# user:`, `assistant[name="bot"]:` alone on a line.
const ROLE_LINE = /^[ \t]*#?[ \t]*([A-Za-z][\w-]*)[ \t]*(\[[^\]\r\n]*\])?[ \t]*:[ \t]*$/gm;
const NAME_ATTRIBUTE = /\bname\s*=\s*(?:"([^"]*)"|'([^']*)'|([^,\]\s]+))/;

/** Parses a `.prompty` file (front matter v1 or v2, body with role markers). */
export function parsePrompty(text: string, fileName: string): PromptDoc {
  const front = readFrontMatter(text);
  const diagnostics = front.diagnostics;
  const fields = front.fields;

  // `model: gpt-4o` is the spec's shorthand for `model: { id: gpt-4o }`, not a wrong type.
  const modelShortcut = fields.raw('model');
  const model = typeof modelShortcut === 'string' ? undefined : fields.map('model');
  const modelId = typeof modelShortcut === 'string' ? modelShortcut : model ? readModelId(model) : undefined;
  const parameters = model?.map('parameters');
  const options = model?.map('options');
  checkParameterTypes(parameters, 'model.parameters');
  checkParameterTypes(options, 'model.options');
  const params = { ...(parameters?.data ?? {}), ...(options?.data ?? {}) };

  const markers = findRoleMarkers(text, front.bodyStart, diagnostics);
  const messages = promptyMessages(text, front.bodyStart, markers, diagnostics);
  const templateFormat = fields.map('template')?.string('format') ?? (typeof fields.raw('template') === 'string' ? fields.string('template') : undefined);

  const prompt: Prompt = {
    name: fields.string('name') ?? promptNameFromFile(fileName),
    range: { start: 0, end: text.length },
    ...(modelId ? { model: modelId } : {}),
    params,
    messages,
    inputs: readInputs(fields),
    ...(typeof fields.raw('sample') === 'string' && /^\$\{file:/.test(String(fields.raw('sample')).trim()) ? { inputsFile: String(fields.raw('sample')).trim() } : {}),
    tests: [],
    evaluators: [],
    templateSyntax: templateFormat === 'mustache' ? 'mustache' : 'jinja',
    body: { engine: templateFormat === 'mustache' ? 'mustache' : 'jinja2', sourceStart: front.bodyStart, bodyStart: front.bodyStart, markers, defaultRole: 'system' },
    ...fileSettings(fields),
  };
  return { format: 'prompty', prompts: [prompt], diagnostics };
}

function readModelId(model: FieldReader): string | undefined {
  // v2: model.id (or its connection's deployment); v1: model.configuration.{azure_deployment | name | model}
  const id = model.string('id');
  if (id) return id;
  const configuration = model.map('configuration') ?? model.map('connection');
  return configuration?.string('azure_deployment') ?? configuration?.string('name') ?? configuration?.string('model');
}

/** Sample values: v1 `sample:` mapping; v2 `inputs.<name>.default` / `.example` / `.sample`. */
function readInputs(fields: FieldReader): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const inputs = fields.raw('inputs');
  const entries: [string, unknown][] = Array.isArray(inputs)
    ? inputs.filter(isPlainRecord).map((item) => [String(item.name ?? ''), item])
    : isPlainRecord(inputs)
      ? Object.entries(inputs)
      : [];
  for (const [name, spec] of entries) {
    if (!name) continue;
    // `inputs: { question: "What is…" }`: a value that is not a specification is the input's default.
    if (!isPlainRecord(spec)) {
      if (spec !== null && spec !== undefined && !Array.isArray(inputs)) values[name] = spec;
      continue;
    }
    for (const key of ['sample', 'example', 'default']) {
      if (spec[key] !== undefined) {
        values[name] = spec[key];
        break;
      }
    }
  }
  const sample = fields.raw('sample');
  if (isPlainRecord(sample)) Object.assign(values, sample);
  return values;
}

/** Keys any prompt file may carry: `tokenBudget`, and `scenario`/`slo` for the rollout decision (checked here, so a typo shows in the editor). */
export function fileSettings(fields: FieldReader): { tokenBudget?: number; rollout?: { scenario?: unknown; slo?: unknown } } {
  const value = fields.number('tokenBudget');
  const scenario = fields.raw('scenario');
  const slo = fields.raw('slo');
  if (scenario !== undefined && !(typeof scenario === 'string' && (SCENARIOS as readonly string[]).includes(scenario.trim()))) {
    fields.report('scenario', `'scenario' must be one of ${SCENARIOS.join(', ')}; Compare revisions refuses anything else.`);
  }
  if (slo !== undefined) {
    try {
      objectivesFromBlock(slo, 'slo');
    } catch (error) {
      fields.report('slo', (error as Error).message);
    }
  }
  return {
    ...(value !== undefined && value > 0 ? { tokenBudget: value } : {}),
    ...(scenario !== undefined || slo !== undefined ? { rollout: { ...(scenario !== undefined ? { scenario } : {}), ...(slo !== undefined ? { slo } : {}) } } : {}),
  };
}

/** The body's messages by Prompty's rule (promptyMessages.ts); a role line whose message is sent empty is flagged. */
function promptyMessages(text: string, bodyStart: number, markers: RoleMarker[], diagnostics: PromptDiagnostic[]): PromptMessage[] {
  const body = trimmedBody(text, bodyStart);
  return promptySpans(text, body.start, body.end, markers, 'system').map((span) => {
    if (span.marker && span.content.start === span.content.end) {
      diagnostics.push({ range: span.marker, severity: 'warning', code: 'empty-message', message: `The ${span.role} message is empty; Prompty sends it with empty content. Add content or remove the role line.` });
    }
    return {
      role: span.role,
      ...(span.name ? { name: span.name } : {}),
      template: text.slice(span.content.start, span.content.end),
      range: { start: span.marker?.start ?? span.content.start, end: Math.max(span.content.end, span.marker?.end ?? 0) },
      contentRange: span.content,
      contentIsVerbatim: true,
    };
  });
}

/** Role lines as Prompty's runtime splits a rendered body at them (known roles only). */
export function promptyRoleLines(text: string, from = 0): RoleMarker[] {
  return findRoleMarkers(text, from, []);
}

function findRoleMarkers(text: string, bodyStart: number, diagnostics: PromptDiagnostic[]): RoleMarker[] {
  const markers: RoleMarker[] = [];
  ROLE_LINE.lastIndex = bodyStart;
  for (let match = ROLE_LINE.exec(text); match; match = ROLE_LINE.exec(text)) {
    const word = match[1]!;
    const role = word.toLowerCase();
    const range = { start: match.index, end: match.index + match[0].length };
    if ((KNOWN_ROLES as readonly string[]).includes(role)) {
      const attributes = match[2] ? NAME_ATTRIBUTE.exec(match[2]) : null;
      const name = attributes ? (attributes[1] ?? attributes[2] ?? attributes[3]) : undefined;
      markers.push({ role, range, ...(name ? { name } : {}) });
      continue;
    }
    const suggestion = nearMissRole(word);
    if (suggestion) {
      diagnostics.push({
        range,
        severity: 'warning',
        code: 'unknown-role',
        message: `Unknown role '${word}'; did you mean '${suggestion}'? Prompty roles are ${KNOWN_ROLES.join(', ')}. This line is sent as text.`,
      });
    }
  }
  return markers;
}
