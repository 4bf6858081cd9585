import type { YAMLMap } from 'yaml';
import { FieldReader, describe } from './fields';
import { splitFrontMatter } from './frontMatter';
import type { PromptDiagnostic } from './model';
import { isPlainRecord, mapNode, parseYaml } from './yaml';

export interface FrontMatterDoc {
  fields: FieldReader;
  bodyStart: number;
  diagnostics: PromptDiagnostic[];
}

/** Front matter parsed into a field reader (empty when absent or broken) plus the body offset. */
export function readFrontMatter(text: string, from = 0): FrontMatterDoc {
  const split = splitFrontMatter(text, from);
  const diagnostics = [...split.diagnostics];
  let data: Record<string, unknown> = {};
  let node: YAMLMap | undefined;
  let base = 0;
  if (split.yaml) {
    base = split.yaml.start;
    const parsed = parseYaml(split.yaml.text, base);
    diagnostics.push(...parsed.diagnostics);
    if (isPlainRecord(parsed.value)) {
      data = parsed.value;
      node = mapNode(parsed.doc?.contents);
    } else if (parsed.value !== undefined && parsed.value !== null) {
      diagnostics.push({
        range: split.frontMatterRange!,
        severity: 'error',
        code: 'invalid-field',
        message: `Front matter should be a YAML mapping (key: value), not ${describe(parsed.value)}.`,
      });
    }
  }
  const fallback = split.frontMatterRange ?? { start: 0, end: 0 };
  return { fields: new FieldReader(data, node, base, fallback, diagnostics), bodyStart: split.bodyStart, diagnostics };
}

/** No front matter: the file from `bodyStart` on is body (what a runtime that finds none sends). */
export function absentFrontMatter(bodyStart = 0): FrontMatterDoc {
  const diagnostics: PromptDiagnostic[] = [];
  return { fields: new FieldReader({}, undefined, 0, { start: bodyStart, end: bodyStart }, diagnostics), bodyStart, diagnostics };
}
