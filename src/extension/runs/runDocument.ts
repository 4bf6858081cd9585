/**
 * The read-only document of a ▶ Run or Run ×N: every answer, each with its status (pass, fail, or
 * unscored and why) and the reason of each assertion it failed, then the figures. Rebuilt from the
 * state as runs finish (no `vscode` here, so it is testable). Two views of the same document:
 * `rendered` (the default, read in the Markdown preview) keeps real tables and folds each answer of a
 * batch under a one-line summary; `text` (read as source in a split editor) keeps lines short, the
 * answers in fences and the tables as aligned text, so nothing wraps into a broken table.
 */
import type { RunCheck } from '../../core/adherence/runChecks';
import { formatMs, plainFigureLines, runSummaryLine } from '../../core/metrics/format';
import type { RunSummary } from '../../core/metrics/summary';
import type { RunRecord } from '../../core/metrics/runRecord';
import { fenceFor, inertMarkdown } from '../shared/markdownFence';

export interface RunEntry {
  answer: string;
  reasoning: string;
  /** Undefined while the run is still going (the first one streams its answer). */
  record?: RunRecord;
  /** Undefined while it is being checked, or when there is nothing to check against. */
  check?: RunCheck;
}

export interface RunDocumentState {
  promptName: string;
  endpointLabel: string;
  model: string;
  inputTokensEstimate: number;
  unresolved: readonly string[];
  runs: number;
  /** What the answers are checked against ("the test case …"), or why they are not checked. */
  checks: { against: string } | { notChecked: string };
  /** What is wrong in the tests file (a malformed assertion is skipped): said under the pass/fail line. */
  testProblems?: readonly string[];
  entries: (RunEntry | undefined)[];
  /** The figures (core/metrics/runReport.ts), once the batch is over. */
  report?: string;
  /** The batch's figures, summed up in words at the top of the document once the batch is over. */
  summary?: RunSummary;
  /** One line on what the CodeLens above the prompt now shows, so the two numbers never seem to disagree. */
  lensNote?: string;
  cancelled?: boolean;
}

/** How the document is read: in the Markdown preview (rendered) or as its source text. */
export type RunDocumentView = 'rendered' | 'text';

/** Problems of the tests file listed in the document; the rest are counted (the tests file shows each where it is). */
const MAX_TEST_PROBLEMS_SHOWN = 10;

/** Answers beyond this many are left to the store (Export Run Results): a document of 10,000 answers helps no one. */
export const MAX_ANSWERS_SHOWN = 200;

const STATUS_TEXT = { pass: '✓ pass', fail: '✗ fail', unscored: '– unscored' } as const;

/** The editor tab's name: the prompt, how many runs, and when; the same words as the document's heading. */
export function runDocumentTitle(promptName: string, runs: number, startedAt: Date): string {
  const time = [startedAt.getHours(), startedAt.getMinutes(), startedAt.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  return `${promptName} — ${runs === 1 ? '1 run' : `${runs} runs`} at ${time}`;
}

export function runDocumentMarkdown(state: RunDocumentState, view: RunDocumentView = 'text'): string {
  const finished = state.entries.filter((e) => e?.record).length;
  const out = [
    `# ${state.promptName} → ${state.endpointLabel}`,
    '',
    `${state.runs === 1 ? '1 run' : `${state.runs} runs`} · model ${state.model} · ${state.inputTokensEstimate.toLocaleString('en-US')} input tokens (estimate)${state.unresolved.length ? ` · no value for ${state.unresolved.join(', ')}` : ''}`,
    '',
    'against' in state.checks ? `Pass/fail: each answer against ${state.checks.against}.` : `Pass/fail: not checked — ${state.checks.notChecked}.`,
  ];
  const testProblems = state.testProblems ?? [];
  if (testProblems.length > 0) {
    const shown = testProblems.slice(0, MAX_TEST_PROBLEMS_SHOWN);
    const more = testProblems.length - shown.length;
    out.push('', `⚠ The test cases have ${testProblems.length === 1 ? 'a problem' : `${testProblems.length} problems`} (an assertion with one is not checked):`, '', ...shown.map((p) => `- ${p}`), ...(more > 0 ? [`- … and ${more} more`] : []));
  }
  const checked = state.entries.filter((e): e is RunEntry & { check: RunCheck } => e?.check !== undefined);
  if (checked.length > 0) {
    const count = (s: RunCheck['status']): number => checked.filter((e) => e.check.status === s).length;
    const unscored = count('unscored');
    out.push('', `**${count('pass')} of ${count('pass') + count('fail')} scored answers pass**${unscored ? ` · ${unscored} unscored (not counted)` : ''} · ${finished} of ${state.runs} runs finished${state.cancelled ? ' (cancelled)' : ''}`);
  } else if (state.runs > 1) {
    out.push('', `${finished} of ${state.runs} runs finished${state.cancelled ? ' (cancelled)' : ''}`);
  }
  // The summary first: what a reader came for, before ten answers to scroll past.
  const figures = state.summary ? plainFigureLines(state.summary) : [];
  if (figures.length > 0) out.push('', '## Summary', '', ...figures.map((line) => `- ${line}`), '', 'Every percentile, the warm runs and the server\'s view are at the end.');
  state.entries.forEach((entry, index) => {
    if (index >= MAX_ANSWERS_SHOWN) return;
    out.push('', ...(view === 'rendered' && state.runs > 1 ? foldedRunSection(entry, index, state.runs) : runSection(entry, index, state.runs, view)));
  });
  if (state.runs > MAX_ANSWERS_SHOWN) out.push('', `_Answers of runs after ${MAX_ANSWERS_SHOWN} are not shown; all are kept: **Prompt Insight: Export Run Results**._`);
  if (state.report) out.push('', view === 'rendered' ? state.report.trimEnd() : tablesAsText(state.report.trimEnd()));
  if (state.lensNote) out.push('', state.lensNote);
  return `${out.join('\n')}\n`;
}

function runSection(entry: RunEntry | undefined, index: number, runs: number, view: RunDocumentView): string[] {
  const name = `Run ${index + 1} of ${runs}`;
  if (!entry) return [`## ${name} · waiting`];
  const record = entry.record;
  if (!record) return [`## ${name} · streaming…`, '', ...answerBlock(entry, view)];
  const figures = runFigures(record);
  return [`## ${name} · ${runStatus(entry, record)}`, '', ...(figures.length > 0 ? [figures.join(' · '), ''] : []), ...runBody(entry, record, view)];
}

/**
 * One run of a batch in the rendered view: a line that says how it went (status, TTFT, E2E), its
 * answer and reasons folded below, so the summary and every run's outcome fit on one screen.
 */
function foldedRunSection(entry: RunEntry | undefined, index: number, runs: number): string[] {
  const name = `Run ${index + 1} of ${runs}`;
  const record = entry?.record;
  const headline = !entry ? `${name} · waiting` : !record ? `${name} · streaming…` : [`${name} · ${runStatus(entry, record)}`, ...runFigures(record)].join(' · ');
  // The blank lines around the body let the preview read it as Markdown inside the HTML block.
  const body = !entry ? [] : !record ? answerBlock(entry, 'rendered') : runBody(entry, record, 'rendered');
  return ['<details>', `<summary>${escapeHtml(headline)}</summary>`, '', ...body, '', '</details>'];
}

function runStatus(entry: RunEntry, record: RunRecord): string {
  return record.error && record.error.kind === 'cancelled' ? 'cancelled' : entry.check ? STATUS_TEXT[entry.check.status] : record.ok ? 'answered' : 'failed';
}

function runFigures(record: RunRecord): string[] {
  return [
    record.retrievalMs != null ? `retrieval ${formatMs(record.retrievalMs)} (${record.retrievedPassages ?? 0} passage${record.retrievedPassages === 1 ? '' : 's'})` : undefined,
    record.ttftMs !== null ? `TTFT ${formatMs(record.ttftMs)}` : undefined,
    record.e2eMs !== null ? `E2E ${formatMs(record.e2eMs)}` : undefined,
    record.outputTokens !== null ? `${record.outputTokens} output tokens` : undefined,
    record.cache && record.cache !== 'unknown' ? (record.cache === 'warm' ? 'partly from the server\'s prompt cache' : 'not from the server\'s prompt cache') : undefined,
  ].filter((x) => x !== undefined);
}

/** What follows a run's headline: its error, why it was not scored, its answer, the assertions it failed. */
function runBody(entry: RunEntry, record: RunRecord, view: RunDocumentView): string[] {
  // Text the server or the model wrote (errors, reasons quoting the answer) is shown, never rendered:
  // in the preview, an image or link in it would be fetched or followed.
  const said = view === 'rendered' ? inertMarkdown : (text: string): string => text;
  const lines: string[] = [];
  if (record.error && record.error.kind !== 'cancelled') lines.push(`Request failed (${record.error.kind}): ${said(record.error.message)}`, '');
  if (entry.check?.status === 'unscored' && entry.check.reason) lines.push(`Not scored: ${said(entry.check.reason)}.`, '');
  lines.push(...answerBlock(entry, view));
  const failed = entry.check?.failed ?? [];
  if (failed.length > 0) lines.push('', ...failed.map((f) => `- ${f.outcome === 'fail' ? '✗' : '–'} ${said(f.label)}: ${said(f.reason)}`));
  return lines;
}

function answerBlock(entry: RunEntry, view: RunDocumentView): string[] {
  const lines: string[] = [];
  if (entry.reasoning && view === 'rendered') {
    const fence = fenceFor(entry.reasoning);
    lines.push('Reasoning:', '', `${fence}text`, entry.reasoning.trimEnd(), fence, '', 'Answer:', '');
  } else if (entry.reasoning) lines.push(...entry.reasoning.trimEnd().split('\n').map((l, i) => `> ${i === 0 ? '(reasoning) ' : ''}${l}`), '');
  if (!entry.answer && entry.record && !entry.record.ok) return lines.length > 0 ? lines.slice(0, -1) : lines;
  const fence = fenceFor(entry.answer);
  lines.push(`${fence}text`, entry.answer.replace(/\n$/, ''), fence);
  return lines;
}

/** Text placed inside an HTML element of the document (the folded run's summary line). */
function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The toast after runs: how many answers passed, then the same figures as the CodeLens (every stored
 * run of this exact text), and how many of them this batch added.
 */
export function runToastLine(batch: RunSummary, lens: RunSummary | undefined, entries: readonly (RunEntry | undefined)[]): string {
  const scored = entries.filter((e) => e?.check && e.check.status !== 'unscored');
  const passed = scored.filter((e) => e!.check!.status === 'pass').length;
  const adherence = scored.length > 0 ? `${passed} of ${scored.length} answers pass · ` : '';
  const batchRuns = batch.runs;
  if (!lens || lens.runs <= batchRuns) return `${adherence}${runSummaryLine(batch)}`;
  return `${adherence}${runSummaryLine(lens)} · ${batchRuns} of the ${lens.runs} from this batch, as the CodeLens counts`;
}

/**
 * Markdown tables as aligned columns in a text block: a raw `.md` document wraps its long lines, and
 * a wrapped pipe table is unreadable in a split editor; aligned text stays narrow and reads the same
 * in the editor and in the Markdown preview.
 */
export function tablesAsText(markdown: string): string {
  const lines = markdown.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!isTableRow(lines[i]!) || !isTableRule(lines[i + 1] ?? '')) {
      out.push(lines[i++]!);
      continue;
    }
    const header = cells(lines[i]!);
    const right = cells(lines[i + 1]!).map((c) => c.endsWith(':'));
    const rows: string[][] = [];
    for (i += 2; i < lines.length && isTableRow(lines[i]!); i++) rows.push(cells(lines[i]!));
    const all = [header, ...rows];
    const widths = header.map((_, c) => Math.max(...all.map((r) => [...(r[c] ?? '')].length)));
    const line = (row: string[]): string => row.map((cell, c) => (right[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ').trimEnd();
    out.push('```text', line(header), ...rows.map(line), '```');
  }
  return out.join('\n');
}

const isTableRow = (line: string): boolean => line.startsWith('|') && line.trimEnd().endsWith('|');
const isTableRule = (line: string): boolean => /^\|(\s*:?-+:?\s*\|)+\s*$/.test(line);
const cells = (line: string): string[] => line.trim().slice(1, -1).split('|').map((c) => c.trim());
