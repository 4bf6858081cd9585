/**
 * `prompt-insight judge-check FILE --judge-endpoint URL --judge-model M`: a trust card for every judged
 * check of the prompt (issue 40, point 3). The judge is asked about each answer people labelled in the
 * prompt's labels file (NAME.labels.jsonl, or --labels), and set against them: TPR and TNR for fail
 * with Wilson intervals, Cohen's κ, trusted or not against the bar, and the disagreements.
 */
import { basename } from 'node:path';
import { labelsPathFor, readLabelsFileSync, type LabelsRead } from '../core/adherence/labelsFile';
import { loadTestSuite } from '../core/adherence/testCases';
import { humanVerdicts, judgedChecks, trustCardOf, type TrustCard } from '../core/adherence/trustCard';
import { describeReadError } from '../core/files/workspaceFile';
import { promptsOf } from '../core/formats/promptFile';
import { transportJudge } from '../core/run/transportJudge';
import { DEFAULT_TRUST_BAR, type RateWithInterval } from '../core/stats/judgeTrust';
import { safeUrl } from '../core/store/runKey';
import { DEFAULT_JUDGE_VERDICT_STORE, judgeVerdictStore, type VerdictStore } from '../core/store/verdictStore';
import { numberFlag, parseArgs, stringFlag, UsageError } from './args';
import { endpointTransport, ENDPOINT_FLAGS } from './endpointArgs';
import { JUDGE_CHECK_USAGE } from './help/usage';
import type { CliIO } from './io';
import { terminalJson } from './terminalText';

export async function judgeCheckCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['prompt', 'labels', ...ENDPOINT_FLAGS.map((f) => `judge-${f}`), 'judge-model', 'timeout-ms', 'min-lower-bound', 'min-labels', 'store'], boolean: ['json', 'no-store'] });
  if (args.flags.has('store') && args.flags.has('no-store')) throw new UsageError('--store and --no-store exclude each other');
  if (args.positionals.length !== 1) throw new UsageError(`give exactly one prompt file\nusage: ${JUDGE_CHECK_USAGE}`);
  const file = args.positionals[0]!;
  const judgeTransport = endpointTransport(args, 'judge-');
  if (!judgeTransport) throw new UsageError(`--judge-endpoint URL is required: the judge whose agreement with people is measured\nusage: ${JUDGE_CHECK_USAGE}`);
  const judgeModel = stringFlag(args, 'judge-model');
  if (!judgeModel) throw new UsageError('--judge-endpoint needs --judge-model');
  const timeoutMs = numberFlag(args, 'timeout-ms', { min: 1 }, 60_000);
  const bar = {
    minLowerBound: numberFlag(args, 'min-lower-bound', { min: 0, max: 1 }, DEFAULT_TRUST_BAR.minLowerBound),
    minEach: numberFlag(args, 'min-labels', { min: 1, max: 1_000_000, integer: true }, DEFAULT_TRUST_BAR.minEach),
  };

  const found = await promptsOf(file, stringFlag(args, 'prompt'));
  if ('error' in found) {
    io.stderr(`prompt-insight judge-check: ${found.error}\n`);
    return 1;
  }
  const prompts = found.prompts;
  if (prompts.length > 1) throw new UsageError(`${file} has ${prompts.length} prompts: name one with --prompt (${prompts.map((p) => p.name).join(', ')})`);
  const suite = loadTestSuite(file, found.text, found.format, prompts[0]!);
  // Each judged check once, by its name (the assertion's metric, or its type and value).
  const checks = judgedChecks(suite);
  if (checks.length === 0) {
    io.stderr(`prompt-insight judge-check: ${suite.source} has no judged check (llm-rubric, a GitHub llm evaluator, or a grounded check such as hallucination)\n`);
    return 1;
  }

  const labelsPath = stringFlag(args, 'labels') ?? labelsPathFor(file);
  let read: LabelsRead | undefined;
  try {
    read = readLabelsFileSync(labelsPath);
  } catch (error) {
    io.stderr(`prompt-insight judge-check: ${labelsPath}: ${describeReadError(error)}\n`);
    return 1;
  }
  if (!read) {
    io.stderr(`prompt-insight judge-check: no labels file ${labelsPath}: label answers first (one JSON object a line: check, vars, answer, label, source, author, time)\n`);
    return 1;
  }
  for (const problem of read.problems) io.stderr(`warning: ${problem}\n`);

  const signal = io.interrupted();
  const judge = transportJudge(judgeTransport, judgeModel, timeoutMs, signal);
  const judgeName = { model: judgeModel, endpoint: safeUrl(stringFlag(args, 'judge-endpoint')!) };
  // The judge's verdicts on labelled answers are kept (sealed to this machine): a re-run asks only about new labels.
  const store = args.flags.has('no-store') ? undefined : judgeVerdictStore(stringFlag(args, 'store') ?? DEFAULT_JUDGE_VERDICT_STORE);
  if (store?.problem) io.stderr(`warning: ${store.problem}\n`);
  const cards: TrustCard[] = [];
  for (const assertion of checks) {
    const name = assertion.label;
    const labelled = humanVerdicts(read.labels, name).length;
    if (!args.flags.has('json')) io.stderr(`Judging ${labelled} labelled answer${labelled === 1 ? '' : 's'} of "${name}"…\n`);
    const card = await trustCardOf(assertion, read.labels, judge, { bar, signal, suite, ...(store ? { cache: { store, judgeId: `${judgeName.model} at ${judgeName.endpoint}` } } : {}) });
    cards.push(card);
    // Saved after each check: an interrupted run keeps what the judge already said.
    saveVerdicts(store, io);
    if (signal.aborted) return 130;
    if (!args.flags.has('json') && card.asked < labelled) io.stderr(`  asked the judge about ${card.asked}; ${labelled - card.asked - card.undecided.count} verdict${labelled - card.asked === 1 ? '' : 's'} kept from earlier runs\n`);
  }
  if (args.flags.has('json')) {
    io.stdout(`${terminalJson({ file, prompt: prompts[0]!.name, labels: labelsPath, judge: judgeName, bar, checks: cards.map(cardJson) })}\n`);
    return 0;
  }
  io.stdout(`${cards.map((card) => cardText(card)).join('\n')}\nJudge: ${judgeName.model} at ${judgeName.endpoint} · labels: ${basename(labelsPath)}\n`);
  return 0;
}

function saveVerdicts(store: VerdictStore | undefined, io: CliIO): void {
  const problem = store?.saveOrSay();
  if (problem) io.stderr(`warning: the judge's verdicts were not kept: ${problem}\n`);
}

const pct = (x: number | null): string => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);
const interval = (r: RateWithInterval): string => (r.ci95 ? ` [${pct(r.ci95[0])}–${pct(r.ci95[1])}]` : '');

function cardJson(card: TrustCard): Record<string, unknown> {
  const { agreement } = card;
  const rate = (r: RateWithInterval) => ({ value: r.value, ci95: r.ci95, of: r.trials });
  return {
    check: card.check, n: agreement.n, passes: agreement.passes, fails: agreement.fails,
    tpr: rate(agreement.tpr), tnr: rate(agreement.tnr), accuracy: agreement.accuracy, kappa: agreement.kappa,
    trusted: card.trusted, why: card.why, undecided: card.undecided, asked: card.asked,
    ...(card.reviewers ? { reviewers: card.reviewers } : {}),
    disagreements: card.disagreements.map((d) => ({ line: d.line, human: d.human, judge: d.judge, reason: d.reason })),
  };
}

function cardText(card: TrustCard): string {
  const { agreement } = card;
  const lines = [
    `${card.trusted ? '✓ trusted' : '✗ not trusted'} — ${card.check}`,
    `  ${agreement.n} labelled answers (${agreement.fails} fail, ${agreement.passes} pass)`,
    `  catches failures (TPR): ${pct(agreement.tpr.value)}${interval(agreement.tpr)} · passes good answers (TNR): ${pct(agreement.tnr.value)}${interval(agreement.tnr)}`,
    `  agreement: ${pct(agreement.accuracy)} · Cohen's κ ${agreement.kappa === null ? 'n/a' : agreement.kappa.toFixed(2)}`,
    `  ${card.why}`,
  ];
  if (card.reviewers) lines.push(`  between people: ${card.reviewers.authors.join(' and ')} agree on ${pct(card.reviewers.agreement)} of ${card.reviewers.shared} answers both labelled · Cohen's κ ${card.reviewers.kappa === null ? 'n/a' : card.reviewers.kappa.toFixed(2)}`);
  if (card.undecided.count > 0) lines.push(`  ${card.undecided.count} answer(s) the judge did not decide: ${card.undecided.firstReason ?? ''}`);
  for (const d of card.disagreements.slice(0, 10)) lines.push(`  line ${d.line}: people said ${d.human}, the judge ${d.judge} — ${d.reason}`);
  if (card.disagreements.length > 10) lines.push(`  … and ${card.disagreements.length - 10} more disagreements (--json lists them all)`);
  return `${lines.join('\n')}\n`;
}
