/**
 * A comparison as JUnit XML, the test report format CI systems read (GitLab, Jenkins, Azure
 * Pipelines, CircleCI, GitHub test-report actions): one suite per comparison; the rollout decision,
 * each SLO of the head and each significance verdict are test cases. The decision fails on hold or
 * insufficient evidence (the gate fails closed); an SLO fails when broken and is skipped while the
 * runs cannot establish it; a verdict fails when the head is significantly worse. A cancelled
 * comparison is an error. Text from outside is escaped, and characters XML cannot hold are dropped.
 */
import type { SloOutcome } from '../rollout/decision';
import type { ComparisonResult } from './compare';
import { DECISION_HEADLINES, judgement } from './markdownReport';
import type { Verdict } from '../stats/verdicts';

interface TestCase {
  name: string;
  outcome: { kind: 'pass' } | { kind: 'failure' | 'error' | 'skipped'; message: string; type?: string; detail?: string };
  out?: string;
}

export function comparisonJunit(result: ComparisonResult, timing: { elapsedMs: number; startedAt: Date }): string {
  const base = result.revisions[0]?.label ?? '?';
  const head = result.revisions[result.revisions.length - 1]?.label ?? '?';
  const cases = [decisionCase(result), ...(result.rollout?.slo ?? []).map(sloCase), ...result.verdicts.map(verdictCase)];
  const count = (kind: string) => cases.filter((c) => c.outcome.kind === kind).length;
  const seconds = (timing.elapsedMs / 1000).toFixed(3);
  const totals = `tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}" skipped="${count('skipped')}" time="${seconds}"`;
  const classname = attr(`prompt-insight.compare.${result.prompt}`);
  const properties = [
    ['file', result.file], ['prompt', result.prompt], ['base', result.revisions[0]?.rev ?? ''], ['head', result.revisions[result.revisions.length - 1]?.rev ?? ''],
    ['decision', result.rollout?.decision ?? (result.cancelled ? 'cancelled' : 'none')], ['scenario', result.policy.scenario], ['policyFrom', result.policyOrigin],
    ['endpoint', result.endpoint], ['model', result.model], ['simulated', String(result.simulated)], ['runsPerCase', String(result.runsPerCase)], ['testCases', String(result.cases.length)],
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="prompt-insight compare" ${totals}>`,
    `  <testsuite name="${attr(`${result.file} › ${result.prompt}: ${base} → ${head}`)}" ${totals} timestamp="${timing.startedAt.toISOString().replace(/\.\d{3}Z$/, '')}">`,
    '    <properties>',
    ...properties.map(([name, value]) => `      <property name="${attr(name!)}" value="${attr(value!)}"/>`),
    '    </properties>',
    ...cases.flatMap((c) => testCaseXml(c, classname)),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

function decisionCase(result: ComparisonResult): TestCase {
  const name = 'rollout decision';
  if (result.cancelled) return { name, outcome: { kind: 'error', message: 'The comparison was cancelled before its runs were done.', type: 'cancelled' } };
  const rollout = result.rollout;
  if (!rollout) return { name, outcome: { kind: 'failure', message: 'No decision: the comparison needs a base and a head revision.', type: 'none', detail: result.evidence.reasons.join('\n') } };
  const headline = `${DECISION_HEADLINES[rollout.decision]}: ${head(result)} (vs ${result.revisions[0]?.label ?? '?'})`;
  const detail = rollout.reasons.map((r) => `- ${r}`).join('\n');
  if (rollout.decision === 'ship' || rollout.decision === 'no-change') return { name, outcome: { kind: 'pass' }, out: `${headline}\n${detail}` };
  return { name, outcome: { kind: 'failure', message: `${headline}: ${rollout.reasons[0] ?? ''}`, type: rollout.decision, detail } };
}

function sloCase(outcome: SloOutcome): TestCase {
  const name = `SLO ${outcome.label}`;
  const j = outcome.head;
  const seen = `head: ${judgement(j)}; base: ${judgement(outcome.base)}`;
  if (j.status === 'met') return { name, outcome: { kind: 'pass' }, out: seen };
  if (j.status === 'broken') return { name, outcome: { kind: 'failure', message: `${outcome.label} is broken by the head`, type: 'slo-broken', detail: seen } };
  const settle = outcome.runsNeeded ? `; about ${outcome.runsNeeded.runs} runs would settle it` : '';
  return { name, outcome: { kind: 'skipped', message: `not established yet${settle}`, detail: seen } };
}

function verdictCase(v: Verdict): TestCase {
  const name = `${v.metric}: head vs base`;
  if (v.verdict === 'worse') return { name, outcome: { kind: 'failure', message: v.summary, type: 'significantly-worse' } };
  if (v.verdict === 'insufficient') return { name, outcome: { kind: 'skipped', message: v.summary } };
  return { name, outcome: { kind: 'pass' }, out: v.summary };
}

function testCaseXml(c: TestCase, classname: string): string[] {
  const open = `    <testcase classname="${classname}" name="${attr(c.name)}" time="0"`;
  const out = c.out ? [`      <system-out>${body(c.out)}</system-out>`] : [];
  if (c.outcome.kind === 'pass') return out.length ? [`${open}>`, ...out, '    </testcase>'] : [`${open}/>`];
  const { kind, message, type, detail } = c.outcome;
  const typeAttr = type ? ` type="${attr(type)}"` : '';
  const element = detail ? `      <${kind} message="${attr(message)}"${typeAttr}>${body(detail)}</${kind}>` : `      <${kind} message="${attr(message)}"${typeAttr}/>`;
  return [`${open}>`, element, ...out, '    </testcase>'];
}

function head(result: ComparisonResult): string {
  return result.revisions[result.revisions.length - 1]?.label ?? '?';
}

/** Characters XML 1.0 cannot hold at all (most control characters, lone surrogates, U+FFFE/U+FFFF). */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function body(value: string): string {
  return value.replace(NOT_XML, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(value: string): string {
  return body(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
