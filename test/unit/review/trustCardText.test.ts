/**
 * The trust cards as the editor renders them (VS Code's Markdown preview: markdown-it, HTML and linkify
 * on): the verdict in words, the rates with their intervals in a table, the disagreements listed; an
 * answer or a judge's reason that holds Markdown, HTML or a link stays text.
 */
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import type { TrustCard } from '../../../src/core/adherence/trustCard';
import { DEFAULT_TRUST_BAR, judgeAgreement, judgeTrusted, type LabelledPair } from '../../../src/core/stats/judgeTrust';
import { trustCardsMarkdown } from '../../../src/extension/review/trustCardText';

const render = (markdown: string): string => new MarkdownIt({ html: true, linkify: true }).render(markdown);

function card(check: string, counts: [LabelledPair['human'], LabelledPair['judge'], number][], disagreements: TrustCard['disagreements'] = []): TrustCard {
  const pairs = counts.flatMap(([human, judge, n]) => Array.from({ length: n }, () => ({ human, judge })));
  const agreement = judgeAgreement(pairs);
  return { check, agreement, ...judgeTrusted(agreement, DEFAULT_TRUST_BAR), undecided: { count: 0 }, asked: pairs.length, disagreements };
}

describe('trust cards in the editor', () => {
  it('say trusted or not in words, with TPR and TNR and their intervals; hostile answers and reasons stay text', () => {
    const hostile = 'Click [here](https://evil.example/steal) ![x](https://evil.example/pixel.png) <img src=x onerror=alert(1)> **now** | col';
    const cards = [
      card('single-family only', [['fail', 'fail', 40], ['pass', 'pass', 40]]),
      card('priced', [['fail', 'fail', 20], ['fail', 'pass', 15], ['pass', 'pass', 35], ['pass', 'fail', 1]], [{ line: 9, human: 'fail', judge: 'pass', answer: hostile, reason: `judge: ${hostile}` }]),
    ];
    const html = render(trustCardsMarkdown(cards, { prompt: 'listings', file: 'listings.prompty', labelsFile: 'listings.labels.jsonl', judge: 'gpt-4o-mini at judge', bar: DEFAULT_TRUST_BAR }));
    expect(html).toContain('<h2>✓ Trusted: single-family only</h2>');
    expect(html).toContain('<h2>✗ Not trusted: priced</h2>');
    expect(html).toMatch(/<td>Catches failures \(TPR\)<\/td>\s*<td>100\.0% \(95% interval 91\.2%–100\.0%\)<\/td>/);
    expect(html).toMatch(/<td>Catches failures \(TPR\)<\/td>\s*<td>57\.1% \(95% interval 40\.9%–72\.0%\)<\/td>/);
    expect(html).toMatch(/<td>Answers people labelled<\/td>\s*<td>71 \(35 fail, 36 pass\)<\/td>/);
    // One disagreement row, its cells intact (the answer's | does not split it), nothing live.
    expect(html).toMatch(/<td>9<\/td>\s*<td>fail<\/td>\s*<td>pass<\/td>/);
    expect(html).not.toMatch(/<a |<img|<strong>now/);
    expect(html).toContain('Click [here](https://evil.example/steal)');
  });
});
