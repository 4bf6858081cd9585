/**
 * The hallucination rate in a comparison, end to end on real sockets: a model server on 127.0.0.1
 * whose answers follow the prompt (the head revision invents a listing's price), a scripted judge
 * replaying claims and verdicts, and the rollout decision holding the change on hallucination alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSuite } from '../../../src/core/adherence/testCases';
import { compareRevisions } from '../../../src/core/compare/compare';
import type { RevisionSource } from '../../../src/core/compare/revisionSources';
import { comparisonView } from '../../../src/core/compare/view';
import { httpTransport } from '../../../src/core/endpoint/transport';
import { resolvePolicy } from '../../../src/core/rollout/scenario';
import { startAnsweringModel, type AnsweringModel } from '../../fixtures/answeringModel';
import { startScriptedJudge, type ScriptedJudge } from '../adherence/scriptedJudge';

const LISTING = '12 Elm St, Bellevue: 3 bedrooms, single-family, listed at $850,000.';
const TRUE_ANSWER = '12 Elm St is listed at $850,000.';
const INVENTED = '12 Elm St is listed at $790,000.';
const prompt = (extra: string) => `---\nname: homes-knowledge\nmodel:\n  configuration:\n    name: homes-model\n---\nsystem:\nAnswer from these listings only.${extra}\n{{context}}\n\nuser:\n{{query}}\n`;
const BASE = prompt('');
const HEAD = prompt(' Round prices to sound attractive.');

let model: AnsweringModel;
let modelUrl: string;
let judge: ScriptedJudge;
let judgeDown = 0;
beforeAll(async () => {
  // Every fifth base run, an answer the judge cannot handle: undetermined, counted apart.
  model = await startAnsweringModel((sent) => (sent.includes('Round prices') ? INVENTED : judgeDown++ % 5 === 4 ? 'Elm St — JUDGE DOWN' : TRUE_ANSWER));
  modelUrl = model.url;
  judge = await startScriptedJudge([
    { step: 'claims', when: `Text:\n${TRUE_ANSWER}`, reply: { claims: ['12 Elm St is listed at $850,000.'] } },
    { step: 'claims', when: `Text:\n${INVENTED}`, reply: { claims: ['12 Elm St is listed at $790,000.'] } },
    { step: 'claims', when: 'Text:\nElm St — JUDGE DOWN', status: 503 },
    { step: 'verdicts', when: '1. 12 Elm St is listed at $850,000.', reply: { verdicts: [{ claim: 1, verdict: 'supported', passage: 1, reason: 'the listing says $850,000' }] } },
    { step: 'verdicts', when: '1. 12 Elm St is listed at $790,000.', reply: { verdicts: [{ claim: 1, verdict: 'contradicted', passage: 1, reason: 'the listing says $850,000, not $790,000' }] } },
  ]);
});
afterAll(async () => {
  await model.close();
  await judge.close();
});

describe('compare: hallucination rate with a Wilson interval, and the decision', () => {
  it('a revision that invents a price is held on hallucination, with the claim and the passage shown; undetermined runs counted apart', async () => {
    const suite: TestSuite = {
      source: 'inline', problems: [],
      cases: [{
        description: 'Elm St price', vars: { query: 'What does 12 Elm St cost?', context: LISTING }, context: [LISTING], threshold: 1,
        // Adherence rests on the string check alone (the hallucination assertion weighs 0): the hold is the hallucination rule's.
        assertions: [{ type: 'icontains', negate: false, value: 'elm st', weight: 1, label: 'names the listing' }, { type: 'hallucination', negate: false, weight: 0, label: 'hallucination' }],
      }],
    };
    const revisions: RevisionSource[] = [{ rev: 'base', label: 'base', path: 'homes.prompty', text: BASE }, { rev: 'head', label: 'head', path: 'homes.prompty', text: HEAD }];
    const result = await compareRevisions({
      file: 'homes.prompty', revisions, gate: { policy: resolvePolicy({ cliScenario: 'decision', cliSlo: ['hallucination<=0.02'] }), suite, retrieval: {}, origin: 'base', changes: [] },
      runsPerCase: 20, transport: httpTransport({ name: 'model', provider: 'openai', baseUrl: modelUrl }, undefined), fresh: true, timeoutMs: 5000, concurrency: 4, judge: judge.judge,
    });
    const [base, head] = result.revisions;
    expect(base!.hallucination).toEqual({ hallucinated: 0, judged: 16, undetermined: 4, rate: 0, ci95: expect.any(Array) });
    expect(head!.hallucination).toMatchObject({ hallucinated: 20, judged: 20, undetermined: 0, rate: 1 });
    expect(head!.hallucination!.ci95![0]).toBeCloseTo(0.8389, 3);
    expect(base!.adherence).toMatchObject({ passed: 20, total: 20 });
    expect(head!.adherence).toMatchObject({ passed: 20, total: 20 });
    expect(result.rollout!.decision).toBe('hold');
    expect(result.rollout!.reasons.join('\n')).toContain('hallucination +100 pts (base 0/16, head 20/20 runs), p < 0.001 — significantly more hallucination');
    expect(result.rollout!.reasons.join('\n')).toMatch(/head breaks SLO hallucination ≤ 2%: 20 of 20 judged runs hallucinate: hallucination ≤ 2% is broken with 95% confidence/);
    const shown = head!.perCase[0]!.runs[0]!;
    expect(shown.hallucinated).toBe(true);
    expect(shown.assertions[1]!.reason).toBe('hallucinates: claim 1 "12 Elm St is listed at $790,000." contradicted by passage 1 "12 Elm St, Bellevue: 3 bedrooms, single-family, listed at $850,000.": the listing says $850,000, not $790,000 (0 supported, 1 contradicted, 0 not mentioned of 1 claims)');
    expect(base!.perCase[0]!.runs.filter((r) => r.hallucinated === null)).toHaveLength(4);
    expect(comparisonView(result).revisions[1]).toMatchObject({ hallucination: { hallucinated: 20, judged: 20 } });
  });
});
