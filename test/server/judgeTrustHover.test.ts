/**
 * The tests file's hover says whether a judged check's judge was trusted when last checked: the real
 * language server over stdio, with the trust summaries Check Judge Trust leaves beside the run store
 * (core/adherence/trustSummaries.ts). A check of code (contains) gets no such line; a judged check not
 * yet carded says how to card it. Text from the card is escaped Markdown.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HoverRequest, type MarkupContent } from 'vscode-languageserver-protocol/node';
import { TRUST_SUMMARIES_FILE, withTrustSummaries } from '../../src/core/adherence/trustSummaries';
import type { TrustCard } from '../../src/core/adherence/trustCard';
import { DEFAULT_TRUST_BAR, judgeAgreement, judgeTrusted } from '../../src/core/stats/judgeTrust';
import { LspHarness } from './lspHarness';

let server: LspHarness;

function card(check: string, fails: number, caught: number): TrustCard {
  const pairs = [
    ...Array.from({ length: fails }, (_, i) => ({ human: 'fail' as const, judge: i < caught ? ('fail' as const) : ('pass' as const) })),
    ...Array.from({ length: 40 }, () => ({ human: 'pass' as const, judge: 'pass' as const })),
  ];
  const agreement = judgeAgreement(pairs);
  return { check, agreement, ...judgeTrusted(agreement, DEFAULT_TRUST_BAR), undecided: { count: 0 }, asked: pairs.length, disagreements: [] };
}

beforeAll(async () => {
  const storage = mkdtempSync(join(tmpdir(), 'pi-trust-hover-'));
  writeFileSync(join(storage, TRUST_SUMMARIES_FILE), withTrustSummaries([], '/tmp/prompt-insight-test/trust/homes.labels.jsonl', [card('single-family only', 40, 28)], 'gpt-4o-mini at judge', new Date('2026-12-07T01:30:00Z')));
  server = new LspHarness();
  await server.initialize({ storePath: join(storage, 'runs.jsonl'), workspaceFolders: ['/tmp/prompt-insight-test'] });
});
afterAll(async () => server?.dispose());

describe('the hover of a judged check', () => {
  it('says whether its judge was trusted when last checked; a check of code says nothing of a judge', async () => {
    const text = [
      'defaultTest:',
      '  assert:',
      '    - type: llm-rubric',
      '      value: Lists only single-family houses',
      '      metric: single-family only',
      '    - type: llm-rubric',
      '      value: Names a price',
      '    - type: contains',
      '      value: house',
      'tests:',
      '  - vars: { city: x }',
      '',
    ].join('\n');
    const { uri } = await server.open('trust/homes.tests.yaml', text);
    const hover = async (line: number, character: number) => ((await server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line, character } }))?.contents as MarkupContent | undefined)?.value;
    const onType = await hover(2, 16);
    expect(onType).toMatch(/^`llm-rubric` — /);
    expect(onType).toContain('\n\nJudge trust: ✗ not trusted — TPR ≥ 55%, TNR ≥ 91% on 80 labels \\(40 fail, 40 pass\\): TPR under the bar of 80% \\(95% lower bounds; both must reach it\\) (gpt\\-4o\\-mini at judge, 2026-12-07 01:30 UTC)');
    // Anywhere in the assertion: its rubric too.
    expect(await hover(3, 20)).toMatch(/^Judge trust: ✗ not trusted/);
    expect(await hover(5, 16)).toContain('Judge trust: not checked yet — label answers (**Review Answers…**), then **Check Judge Trust**.');
    expect(await hover(7, 16)).not.toContain('Judge trust');
  });
});
