/**
 * What the production actions show, as Markdown documents (no `vscode` here, so it is testable): the
 * preview of *Sample Production into Tests…* — the cases exactly as they will be appended, secrets already
 * redacted, and what was left out — and the verdict of *Decide Gray Release* with its reasons in words.
 */
import { stringify } from 'yaml';
import { formatMs } from '../../core/metrics/format';
import { registryLine } from '../../core/release/baseSide';
import { VERDICT_WORDS, verdictLine, type GrayReleaseResult } from '../../core/release/grayRelease';
import type { SamplePlan } from '../../core/sampling/sampleIntoTests';
import { caseObject, failureWords } from '../../core/sampling/testsFileAppend';
import { fenceFor, inertMarkdown } from '../shared/markdownFence';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `Write 3 cases to greet.tests.yaml`: the confirming button. */
export function writeButtonLabel(cases: number, testsFileName: string): string {
  return `Write ${plural(cases, 'case')} to ${testsFileName}`;
}

export function samplePreviewMarkdown(plan: SamplePlan, labels: { file: string; testsFile: string; range: string }): string {
  const { sink, result, testsFile, redactions, request } = plan;
  const cases = result.cases;
  // Rendered in the Markdown preview: what production recorded (versions, times, errors, variable names) is inert text.
  const said = inertMarkdown;
  const version = plan.version ? `version ${said(plan.version.asked)}` : 'every version';
  const out = [
    `# Sample production into tests: ${request.prompt.name}`,
    '',
    `${labels.file} → ${labels.testsFile} · ${version} · ${labels.range} · strategy ${request.strategy}, ${request.n} at most`,
    '',
    `${plural(sink.matched, 'production request')} of ${request.prompt.name}, ${sink.matched - sink.withoutInput} with captured input. **${plural(cases.length, 'case')}** would be appended after the ${plural(testsFile.existingCases, 'existing case')}.`,
    '',
    `Nothing is written until you choose "${writeButtonLabel(cases.length, labels.testsFile)}".`,
    '',
    Object.keys(redactions).length
      ? `Redacted before writing: ${Object.entries(redactions).sort(([a], [b]) => (a < b ? -1 : 1)).map(([kind, n]) => `${n} ${kind}`).join(', ')} (shown below as [REDACTED:kind]).`
      : 'Redacted before writing: nothing matched the secret and personal-data rules.',
  ];
  const left = [
    sink.outsideRange ? `${sink.outsideRange} outside the range` : '',
    sink.otherVersion ? `${sink.otherVersion} of other versions` : '',
    sink.withoutInput ? `${sink.withoutInput} without captured input` : '',
    result.duplicates ? `${plural(result.duplicates, 'duplicate input')}` : '',
    result.alreadyInFile ? `${result.alreadyInFile} already ${result.alreadyInFile === 1 ? 'a case' : 'cases'} in the file` : '',
    request.strategy === 'slowest' && sink.failedNotSlowest ? `${sink.failedNotSlowest} failed calls (slowest takes calls that answered)` : '',
  ].filter(Boolean);
  if (left.length) out.push('', `Left out: ${left.join(', ')}.`);
  for (const problem of plan.version?.problems ?? []) out.push('', `Note: ${said(problem)}`);
  out.push('', '## The cases');
  for (const c of cases) {
    const failure = failureWords(c);
    out.push('', `- ${said(c.endTime)} · version ${said(c.version)} · took ${formatMs(c.e2eMs)}${failure ? ` · ${said(failure)}` : ''} · ${c.inputs === 'template-variables' ? `variables ${said(Object.keys(c.vars).join(', '))}` : `production's ${plural(c.turns!.length, 'turn')}`}`);
  }
  const yamlText = stringify(cases.map((c) => caseObject(c, request.strategy, !testsFile.hasDefaultAssertions)), { lineWidth: 0 });
  const fence = fenceFor(yamlText);
  out.push('', `## As appended to ${labels.testsFile} (under tests:)`, '', `${fence}yaml`, yamlText.trimEnd(), fence);
  return `${out.join('\n')}\n`;
}

/** What a decision means for the release, in one sentence. */
const MEANING = {
  promote: 'The head is no worse than the base on what production measured: send it all the traffic.',
  'roll-back': 'The head is worse than the base on what production measured: send the traffic back to the base.',
  insufficient: 'Production has not yet shown enough to decide either way: keep the split and decide again later.',
} as const;

export function grayReleaseMarkdown(result: GrayReleaseResult, labels: { file: string; range: string; policy: 'base' | 'head' }): string {
  const { decision, report } = result;
  // Rendered in the Markdown preview: versions come from the traces, reasons and notes quote them.
  const said = inertMarkdown;
  const count = (v: string) => report.versions.find((r) => r.version === v)?.requests;
  const side = (v: string) => (count(v) !== undefined ? `${said(v)} (${plural(count(v)!, 'request')})` : said(v));
  const out = [
    `# Gray release: ${VERDICT_WORDS[decision.decision]}`,
    '',
    `**${said(verdictLine(decision))}**`,
    '',
    MEANING[decision.decision],
    '',
    `${said(labels.file)} · head ${side(decision.head)} against base ${side(decision.base)} · ${labels.range} · judged with the ${labels.policy}'s tests`,
  ];
  if (decision.matching) out.push('', `Compared on ${said(decision.matching)}.`);
  out.push('', '## Why', '', ...decision.reasons.map((r) => `- ${said(r)}`));
  if (decision.registry) out.push('', `${said(registryLine(decision.registry).replace(/^v/, 'V'))}.`);
  if (result.notes.length) out.push('', '## Notes', '', ...result.notes.map((n) => `- ${said(n)}`));
  return `${out.join('\n')}\n`;
}
