/**
 * The CI writers on a comparison whose text comes from outside (commit subjects, test case names, an
 * endpoint's error): the Markdown renders (markdown-it, GFM tables) with every row intact and nothing
 * injected — no HTML, link or @mention; the JUnit XML is well-formed (fast-xml-parser) and counts
 * its failures and skips as CI systems read them.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { comparisonJunit } from '../../../src/core/compare/junitReport';
import { comparisonMarkdown } from '../../../src/core/compare/markdownReport';
import { syntheticComparison } from '../../fixtures/syntheticComparison';

const HOSTILE = 'fix | </td><script>alert(1)</script> [click](https://evil.example) @octocat `x` **bold**\n::error::forged\u0000\u0007';

function hostileComparison() {
  const result = syntheticComparison(2, 40, 2);
  result.revisions[1]!.subject = HOSTILE;
  result.revisions[1]!.label = 'a|b`c';
  result.rollout = { ...result.rollout!, decision: 'hold', reasons: [HOSTILE, 'adherence -20 pts, p < 0.001 — significantly worse'] };
  return result;
}

describe('the Markdown summary', () => {
  it('renders as one table row per revision, with hostile text shown as text', () => {
    const markdown = comparisonMarkdown(hostileComparison());
    expect(markdown).toMatch(/^### Prompt gate: ❌ HOLD — `homes\.prompty`/);
    const html = new MarkdownIt({ linkify: true }).render(markdown);
    expect(html).not.toMatch(/<script|<\/td><script|<a |<strong>bold/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const revisionTable = /<table>\s*<thead>\s*<tr>\s*<th>revision<\/th>[\s\S]*?<\/table>/.exec(html)![0];
    expect(revisionTable.match(/<tr>/g)).toHaveLength(3); // header, base, head: the `|` in the subject split nothing
    expect(revisionTable).toContain('<code>a|b`c</code> head');
    expect(markdown.split('\n').filter((line) => line.startsWith('::'))).toEqual([]);
    expect(markdown).not.toMatch(/[\u0000\u0007]/);
    expect(markdown).toContain('\\@octocat');
  });
});

describe('the JUnit report', () => {
  it('is well-formed with hostile text; a hold fails the decision case', () => {
    const xml = comparisonJunit(hostileComparison(), { elapsedMs: 12_345, startedAt: new Date('2026-12-05T10:00:00Z') });
    expect(XMLValidator.validate(xml)).toBe(true);
    const { testsuites } = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'testcase' }).parse(xml);
    expect(testsuites).toMatchObject({ '@_time': '12.345' });
    const cases = testsuites.testsuite.testcase as { '@_name': string; failure?: { '@_message': string; '@_type': string } }[];
    const decision = cases.find((c) => c['@_name'] === 'rollout decision')!;
    expect(decision.failure!['@_type']).toBe('hold');
    expect(decision.failure!['@_message']).toContain('</td><script>');
    expect(Number(testsuites['@_failures'])).toBe(cases.filter((c) => c.failure).length);
    expect(Number(testsuites['@_tests'])).toBe(cases.length);
  });

  it('a cancelled comparison is an error, not a pass', () => {
    const result = syntheticComparison(2, 20, 2);
    result.cancelled = true;
    const { testsuites } = new XMLParser({ ignoreAttributes: false }).parse(comparisonJunit(result, { elapsedMs: 0, startedAt: new Date(0) }));
    expect(testsuites['@_errors']).toBe('1');
  });
});
