/** Renders a comparison into the page: verdict cards, charts, per-test matrix, prompt diff. No HTML strings from data. */
import { untilDecidedLine } from '../src/core/compare/untilDecidedText';
import type { ComparisonView } from '../src/core/compare/view';
import { objectiveLabelFromText } from '../src/core/rollout/slo';
import { drawCharts } from './charts';
import { el } from './dom';
import { capacitySection, knowledgeSection } from './knowledge';

const VERDICT_WORDS = { better: 'better', worse: 'worse' } as const;

type CaseRuns = ComparisonView['revisions'][number]['perCase'][number];

/** The answers of one test case on one revision, each with its outcome and every assertion that did not pass. */
function caseRunsView(description: string, revision: string, cell: CaseRuns): Node[] {
  const shown = cell.runs.length < cell.total + cell.unscored ? ` (the first ${cell.runs.length} of ${cell.total + cell.unscored} runs)` : '';
  const items = cell.runs.map((run, i) => {
    const status = run.status === 'unscored' ? `unscored: ${run.reason ?? 'could not be scored'}` : run.status;
    const failed = run.assertions.filter((a) => a.outcome !== 'pass').map((a) => el('li', { className: a.outcome, text: `${a.outcome === 'undecided' ? 'undecided' : 'failed'}: ${a.label} — ${a.reason}` }));
    return el('li', { className: `run ${run.status}` }, [
      el('p', { className: 'run-status', text: `Run ${i + 1}: ${status}` }),
      el('pre', { className: 'answer', text: run.answer || '(no answer)' }),
      ...(failed.length > 0 ? [el('ul', { className: 'assertions' }, failed)] : []),
    ]);
  });
  return [el('h3', { text: `${description} on ${revision}${shown}` }), el('ol', { className: 'runs' }, items)];
}

/** What the result can ask of the panel around it (none in the standalone report). */
export interface ComparisonActions {
  /** Re-run the comparison judged with the head's tests. */
  judgeWithHead?: () => void;
}

/** Offered when the base's tests judged and the head changes them in ways not applied. */
function judgeWithHeadButton(view: ComparisonView, actions: ComparisonActions): Node[] | undefined {
  const run = actions.judgeWithHead;
  if (!run || view.policy.from !== 'base' || !view.policy.changes.some((c) => !c.applied)) return undefined;
  const button = el('button', { className: 'judge-with-head', text: "Judge with the head's tests", attrs: { type: 'button', title: 'Run the comparison again (stored runs are reused) with the scenario, SLOs and test cases the head has.' } });
  button.addEventListener('click', run);
  return [el('p', {}, [button])];
}

export function renderComparison(target: HTMLElement, view: ComparisonView, actions: ComparisonActions = {}): number {
  const started = performance.now();
  const labelOf = new Map(view.revisions.map((r) => [r.rev, r.label]));
  const base = view.revisions[0];
  const head = view.revisions[view.revisions.length - 1];
  const header = el('header', {}, [
    el('h2', { text: `${view.prompt} — ${view.revisions.map((r) => r.label).join(' → ')}` }),
    el('p', { className: 'meta', text: `${view.endpoint} · ${view.model} · ${view.cases.length} test case(s) × ${view.runsPerCase} runs · tests from ${view.suiteSource}${view.cancelled ? ' · CANCELLED: partial results' : ''}` }),
  ]);
  // Older reports have no line of their own: the origin alone says whose tests judged.
  header.append(el('p', { className: 'meta judged-with', text: view.policy.judgedWith ?? `Judged with the ${view.policy.from}'s tests` }));
  if (view.simulated) header.append(el('p', { className: 'simulated', text: 'SIMULATED endpoint: answers and timings are scripted rehearsals, not a real model.' }));
  const sections: Node[] = [header];
  if (view.rollout && base && head) {
    const words = { ship: `✓ Ship ${head.label}`, hold: `✗ Hold ${head.label}`, insufficient: `? Insufficient evidence for ${head.label}`, 'no-change': `= No change in ${head.label}` } as const;
    const reasons = el('ul', { className: 'reasons' }, view.rollout.reasons.map((r) => el('li', { text: r })));
    const policyChanges = view.policy.changes.map((c) => el('li', { text: `${c.text} — ${c.why}` }));
    sections.push(
      el('section', { className: `rollout ${view.rollout.decision}`, attrs: { 'aria-label': 'rollout decision' } }, [
        el('h3', { className: 'decision', text: `${words[view.rollout.decision]} (vs ${base.label})` }),
        el('p', { className: 'meta', text: `Scenario: ${view.policy.scenario} (${view.policy.scenarioSource}) · SLOs: ${view.policy.slo.length > 0 ? view.policy.slo.map(objectiveLabelFromText).join(', ') : 'none'} · judged with the ${view.policy.from}'s tests${view.policy.retrieval ? ` · retrieval: ${view.policy.retrieval}, its step run for every revision` : ''}` }),
        reasons,
        ...(view.untilDecided ? [el('p', { className: 'meta until-decided', text: untilDecidedLine(view.untilDecided, view.rollout.decision) })] : []),
        ...(policyChanges.length > 0 ? [el('p', { className: 'meta', text: "What the head changes in the tests that judge it:" }), el('ul', { className: 'policy-changes' }, policyChanges)] : []),
        ...(judgeWithHeadButton(view, actions) ?? []),
      ]),
    );
  }
  const reused = view.revisions.filter((r) => r.runsReused > 0);
  sections.push(el('p', { className: 'meta reuse', text: reused.length === 0 ? 'All runs fresh, interleaved across the revisions in one time window.' : `Reused stored runs: ${reused.map((r) => `${r.label} ${r.runsReused} (recorded since ${r.reusedSince ?? '?'})`).join(', ')}; fresh runs interleaved in one time window.` }));
  const verdictCards = el('section', { className: 'verdicts', attrs: { 'aria-label': 'verdicts' } });
  const byHead = new Map<string, ComparisonView['verdicts']>();
  for (const v of view.verdicts) byHead.set(v.head, [...(byHead.get(v.head) ?? []), v]);
  for (const [headRev, verdicts] of byHead) {
    const card = el('article', { className: 'card', attrs: { tabindex: '0' } }, [el('h3', { text: `${labelOf.get(verdicts[0]!.base) ?? verdicts[0]!.base} → ${labelOf.get(headRev) ?? headRev}` })]);
    for (const v of verdicts) card.append(el('p', { className: `verdict ${v.verdict}`, text: v.verdict === 'better' || v.verdict === 'worse' ? `${v.summary} — ${VERDICT_WORDS[v.verdict]}` : v.summary }));
    verdictCards.append(card);
  }
  sections.push(verdictCards);
  const knowledge = knowledgeSection(view);
  if (knowledge) sections.push(knowledge);
  const capacity = capacitySection(view);
  if (capacity) sections.push(capacity);
  const canvas = (label: string) => el('canvas', { attrs: { role: 'img', 'aria-label': label } });
  const canvases = {
    adherence: canvas('adherence per revision with 95% intervals'),
    ttft: canvas('TTFT percentiles per revision'),
    e2e: canvas('E2E percentiles per revision'),
    tokens: canvas('prompt tokens per revision'),
    ...(view.timeline ? { timeline: canvas('TTFT of each fresh run over time, with the server’s running and waiting requests') } : {}),
  };
  const chartGrid = el('section', { className: 'charts' }, Object.entries(canvases).map(([name, c]) => el('figure', { className: `chart ${name}` }, [el('div', { className: 'chart-box' }, [c])])));
  const matrix = el('table', { className: 'matrix', attrs: { 'aria-label': 'pass rate per test case and revision; choose a cell for its answers' } });
  matrix.append(el('thead', {}, [el('tr', {}, [el('th', { text: 'test case' }), ...view.revisions.map((r) => el('th', { text: r.label, attrs: { scope: 'col' } }))])]));
  const body = el('tbody');
  const runDetails = el('section', { className: 'run-details', attrs: { 'aria-label': 'answers of the chosen cell', 'aria-live': 'polite' } });
  view.cases.forEach((description, i) => {
    body.append(el('tr', {}, [el('th', { text: description, attrs: { scope: 'row' } }), ...view.revisions.map((r) => {
      const cell = r.perCase[i];
      const rate = cell && cell.total > 0 ? cell.passed / cell.total : null;
      const text = cell ? `${cell.passed}/${cell.total}${cell.unscored ? ` +${cell.unscored} unscored` : ''}` : '—';
      const td = el('td', { className: rate === null ? 'na' : rate >= 0.8 ? 'pass' : rate >= 0.5 ? 'mixed' : 'fail' });
      if (cell && cell.runs.length > 0) {
        const button = el('button', { className: 'cell', text, attrs: { type: 'button', 'aria-label': `${description} on ${r.label}: ${text}; show the answers` } });
        button.addEventListener('click', () => runDetails.replaceChildren(...caseRunsView(description, r.label, cell)));
        td.append(button);
      } else td.textContent = text;
      return td;
    })]));
  });
  matrix.append(body);
  sections.push(chartGrid, el('h3', { text: 'Per test case' }), matrix, runDetails);
  const errors = view.revisions.filter((r) => r.error).map((r) => el('li', { text: r.error! }));
  if (errors.length || view.problems.length) sections.push(el('h3', { text: 'Problems' }), el('ul', { className: 'problems' }, [...errors, ...view.problems.map((p) => el('li', { text: p }))]));
  if (view.diff) {
    const pre = el('pre', { className: 'diff', attrs: { 'aria-label': `prompt diff ${view.diff.base} → ${view.diff.head}` } });
    if (view.diff.lines) for (const line of view.diff.lines) pre.append(el('span', { className: line.kind, text: `${line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}${line.text}\n` }));
    else pre.textContent = 'The revisions are too large to diff here.';
    sections.push(el('h3', { text: `Prompt diff ${view.diff.base} → ${view.diff.head}` }), pre);
  }
  target.replaceChildren(...sections);
  drawCharts(view, canvases);
  return performance.now() - started;
}
