/**
 * The one model every prompt format is parsed into. Ranges are UTF-16 offsets into the
 * file text (what JavaScript strings and LSP positions use); faces convert them to
 * line/character with `LineIndex`.
 */

export type PromptFormat = 'prompty' | 'github-prompt-yaml' | 'dotprompt' | 'vscode-prompt-md' | 'text';

export interface OffsetRange {
  start: number;
  end: number;
}

export type DiagnosticSeverity = 'error' | 'warning' | 'information' | 'hint';

export type DiagnosticCode =
  | 'parse-error'
  | 'invalid-field'
  | 'unterminated-front-matter'
  | 'front-matter-end'
  | 'unknown-role'
  | 'empty-message'
  | 'unresolved-variable'
  | 'token-budget'
  | 'unsupported-template'
  | 'not-text'
  | 'file-too-large'
  | 'template-error'
  | 'unresolved-reference'
  | 'untrusted-workspace'
  | 'schema-not-checked'
  | 'media-not-counted'
  /** A front-matter `tests:` the tests-file schema finds wrong (core/adherence/testsSchema.ts). */
  | 'tests-schema';

export interface PromptDiagnostic {
  range: OffsetRange;
  severity: DiagnosticSeverity;
  code: DiagnosticCode;
  message: string;
}

export interface PromptMessage {
  role: string;
  /** The message text as written, template placeholders included. */
  template: string;
  /** Optional participant name (counts toward the chat overhead). */
  name?: string;
  /** Whole message: role marker (or YAML item) through the end of its content. */
  range: OffsetRange;
  /** Where the content sits in the file, used to place variable diagnostics. */
  contentRange: OffsetRange;
  /** Template offsets equal file offsets minus contentRange.start (false for YAML block scalars). */
  contentIsVerbatim: boolean;
}

/** A test case as the source format states it; issue 4's adherence engine interprets it. */
export interface PromptTestCase {
  vars: Record<string, unknown>;
  expected?: unknown;
  range: OffsetRange;
}

export interface Prompt {
  name: string;
  range: OffsetRange;
  model?: string;
  params: Record<string, unknown>;
  messages: PromptMessage[];
  /** Values used to fill template variables when counting (sample, defaults, first test row). */
  inputs: Record<string, unknown>;
  /** Prompty `sample: ${file:…}`: the sample values are that file's (read beside the prompt). */
  inputsFile?: string;
  tests: PromptTestCase[];
  /** Format-specific evaluator declarations, kept raw (GitHub `evaluators`). */
  evaluators: unknown[];
  responseFormat?: unknown;
  /** Token budget from the file itself (`tokenBudget` key), overriding the setting. */
  tokenBudget?: number;
  /** `scenario:` and `slo:` as written (front matter or `.prompt.yml` top level), for the rollout decision. */
  rollout?: { scenario?: unknown; slo?: unknown };
  /** Template syntax used by the messages. */
  templateSyntax: TemplateSyntax;
  /**
   * Prompty and Dotprompt render the whole body with a template engine and only then split it into
   * messages (loops can make messages); `messages` above are the body's sections as written.
   */
  body?: PromptBody;
}

export type BodyEngine = 'jinja2' | 'mustache' | 'dotprompt';

export interface PromptBody {
  engine: BodyEngine;
  /** Where the engine's input starts: the body (Prompty) or the front matter (Dotprompt, which parses it itself). */
  sourceStart: number;
  bodyStart: number;
  /** Every role marker in the body as written, empty sections included. */
  markers: { role: string; name?: string; range: OffsetRange }[];
  /** Role of text before the first marker. */
  defaultRole: string;
}

export type TemplateSyntax = 'mustache' | 'jinja' | 'handlebars' | 'vscode' | 'gh-models' | 'none';

export interface PromptDoc {
  format: PromptFormat;
  prompts: Prompt[];
  diagnostics: PromptDiagnostic[];
}
