/**
 * A line in the hover of a judged check in a tests file: whether its judge was trusted the last time
 * Check Judge Trust set it against people's labels (core/adherence/trustSummaries.ts), with the numbers
 * and when. The judge is never asked from a hover.
 */
import { parseDocument } from 'yaml';
import { readAssertion } from '../core/adherence/testCases';
import { CARDED_TYPES } from '../core/adherence/trustCard';
import { readTrustSummaries, trustSummaryFor } from '../core/adherence/trustSummaries';
import { nodeAtOffset } from './testsYamlPath';

/** The line for the assertion under `offset`, or undefined when it is not a judged check or has no card yet. */
export function judgeTrustLine(text: string, offset: number, testsPath: string, summariesPath: string | undefined): string | undefined {
  if (!summariesPath) return undefined;
  const at = nodeAtOffset(text, offset);
  const assertAt = at?.path.lastIndexOf('assert') ?? -1;
  if (!at || assertAt < 0 || typeof at.path[assertAt + 1] !== 'number') return undefined;
  const raw = parseDocument(text).getIn(at.path.slice(0, assertAt + 2)) as { toJSON?: () => unknown } | undefined;
  const assertion = readAssertion(raw?.toJSON ? raw.toJSON() : raw);
  if (!assertion || !CARDED_TYPES.has(assertion.type)) return undefined;
  const summary = trustSummaryFor(readTrustSummaries(summariesPath), testsPath, assertion.label);
  if (!summary) return `Judge trust: not checked yet — label answers (**Review Answers…**), then **Check Judge Trust**.`;
  const mark = summary.trusted ? '✓ trusted' : '✗ not trusted';
  return `Judge trust: ${mark} — ${escapeMarkdown(summary.why)} (${escapeMarkdown(summary.judge)}, ${summary.at.slice(0, 16).replace('T', ' ')} UTC)`;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, (c) => `\\${c}`);
}
