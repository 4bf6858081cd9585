/**
 * The trust cards as the editor shows them (rendered by the Markdown preview): per judged check,
 * trusted or not in words, what the judge catches and passes with their intervals, agreement and κ,
 * and where it disagreed with people. Answers and reasons are text from a model: inert Markdown.
 */
import type { TrustCard } from '../../core/adherence/trustCard';
import type { RateWithInterval, TrustBar } from '../../core/stats/judgeTrust';
import { inertMarkdown } from '../shared/markdownFence';

const pct = (x: number | null): string => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);
const interval = (r: RateWithInterval): string => (r.ci95 ? ` (95% interval ${pct(r.ci95[0])}–${pct(r.ci95[1])})` : '');
const oneLine = (text: string, max = 160): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export interface TrustCardsHeader {
  prompt: string;
  file: string;
  labelsFile: string;
  judge: string;
  bar: TrustBar;
}

export function trustCardsMarkdown(cards: readonly TrustCard[], header: TrustCardsHeader): string {
  const out = [
    `# Judge trust — ${inertMarkdown(header.prompt)}`,
    '',
    `${inertMarkdown(header.file)} · labels: ${inertMarkdown(header.labelsFile)} · judge: ${inertMarkdown(header.judge)}`,
    '',
    `A judge is trusted for a check when the lower ends of the 95% intervals of what it catches and what it passes are both at least ${pct(header.bar.minLowerBound)}, on at least ${header.bar.minEach} failing and ${header.bar.minEach} passing answers people labelled.`,
    '',
  ];
  for (const card of cards) {
    const { agreement } = card;
    out.push(
      `## ${card.trusted ? '✓ Trusted' : '✗ Not trusted'}: ${inertMarkdown(card.check)}`,
      '',
      `${inertMarkdown(card.why)}.`,
      '',
      '| | |',
      '|---|---|',
      `| Answers people labelled | ${agreement.n} (${agreement.fails} fail, ${agreement.passes} pass) |`,
      `| Catches failures (TPR) | ${pct(agreement.tpr.value)}${interval(agreement.tpr)} |`,
      `| Passes good answers (TNR) | ${pct(agreement.tnr.value)}${interval(agreement.tnr)} |`,
      `| Agrees with people | ${pct(agreement.accuracy)} · Cohen's κ ${agreement.kappa === null ? 'n/a' : agreement.kappa.toFixed(2)} |`,
      `| Asked the judge now | ${card.asked} (the rest are verdicts kept from earlier) |`,
      ...(card.reviewers ? [`| Between people | ${inertMarkdown(card.reviewers.authors.join(' and '))} agree on ${pct(card.reviewers.agreement)} of ${card.reviewers.shared} answers both labelled · Cohen's κ ${card.reviewers.kappa === null ? 'n/a' : card.reviewers.kappa.toFixed(2)} |`] : []),
      '',
    );
    if (card.undecided.count > 0) out.push(`${card.undecided.count} labelled answer(s) the judge did not decide: ${inertMarkdown(oneLine(card.undecided.firstReason ?? ''))}`, '');
    if (card.disagreements.length > 0) {
      out.push(`### Where the judge and people disagree (${card.disagreements.length})`, '', '| Line | People | Judge | Answer | The judge\'s reason |', '|---|---|---|---|---|');
      for (const d of card.disagreements.slice(0, 50)) out.push(`| ${d.line} | ${d.human} | ${d.judge} | ${inertMarkdown(oneLine(d.answer, 120))} | ${inertMarkdown(oneLine(d.reason))} |`);
      if (card.disagreements.length > 50) out.push('', `… and ${card.disagreements.length - 50} more (prompt-insight judge-check --json lists them all).`);
      out.push('');
    }
  }
  return `${out.join('\n')}\n`;
}
