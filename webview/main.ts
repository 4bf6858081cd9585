/**
 * Browser bundle of the comparison panel and of the standalone HTML report. In the report the data is
 * embedded as JSON; in VS Code it comes from the extension host as typed, validated messages.
 */
import { isComparisonView, isHostToWebview, MAX_PANEL_RUNS, type JudgeWith, type RevisionChoice, type WebviewToHost } from '../src/protocol/webview';
import { isCapacityView } from '../src/core/load/capacityView';
import { renderCapacity } from './capacity';
import { isProductionView } from '../src/core/telemetry/productionView';
import { renderProduction, type ProductionHost } from './production';
import { isHostToProductionPage, type ProductionPageToHost } from '../src/protocol/productionWebview';
import { el, visibleControls } from './dom';
import type { ReviewPageToHost } from '../src/protocol/reviewWebview';
import { renderComparison } from './render';
import { isReviewStart, startReview } from './review';

declare function acquireVsCodeApi(): { postMessage(message: WebviewToHost | ProductionPageToHost | ReviewPageToHost): void };

const app = document.getElementById('app')!;
const embedded = document.getElementById('report-data');

function recordRenderTime(ms: number): void {
  document.body.dataset.renderMs = ms.toFixed(1);
}

if (embedded) {
  const data: unknown = JSON.parse(embedded.textContent ?? 'null');
  if (isReviewStart(data) && typeof acquireVsCodeApi === 'function') {
    const vscode = acquireVsCodeApi();
    startReview(app, data, (message) => vscode.postMessage(message));
  } else if (isCapacityView(data)) recordRenderTime(renderCapacity(app, data));
  else if (isProductionView(data)) recordRenderTime(renderProduction(app, data, productionHost()));
  else if (isComparisonView(data)) recordRenderTime(renderComparison(app, data));
  else app.textContent = 'This report holds no readable comparison or capacity test.';
} else {
  startPanel();
}

/** In VS Code the Production page talks to the extension (the window picker, the follow-up commands); a standalone report has no host. */
function productionHost(): ProductionHost | undefined {
  if (typeof acquireVsCodeApi !== 'function') return undefined;
  const vscode = acquireVsCodeApi();
  const host: ProductionHost = { post: (message) => vscode.postMessage(message) };
  window.addEventListener('message', (event: MessageEvent) => {
    const message: unknown = event.data;
    if (!isHostToProductionPage(message)) return;
    if (message.type === 'productionView') recordRenderTime(renderProduction(app, message.view, host));
    else {
      const status = app.querySelector('.status');
      if (status) status.textContent = visibleControls(message.text);
    }
  });
  return host;
}

function startPanel(): void {
  const vscode = acquireVsCodeApi();
  const picker = el('section', { className: 'picker', attrs: { 'aria-label': 'revisions' } });
  // Whose tests judge the change: the base's (a change cannot relax its own gate) or, when asked, the head's.
  const judgeWith = el('select', { attrs: { id: 'judge-with', title: "The base's tests: the scenario, SLOs, test cases and retrieval step as committed before the change (the head's stricter SLOs are added). The head's tests: as the change has them — new test cases, e.g. sampled from production, judge it too." } }, [
    el('option', { text: "base's tests", attrs: { value: 'base' } }),
    el('option', { text: "head's tests", attrs: { value: 'head' } }),
  ]);
  const judging = el('p', { className: 'judge-with' }, [el('label', { text: 'Judge with: ', attrs: { for: 'judge-with' } }), judgeWith]);
  const runs = el('input', { attrs: { type: 'number', min: '1', max: String(MAX_PANEL_RUNS), value: '10', id: 'runs' } });
  const fresh = el('input', { attrs: { type: 'checkbox', id: 'fresh' } });
  const capacity = el('input', { attrs: { type: 'checkbox', id: 'capacity' } });
  const compare = el('button', { text: 'Compare selected', attrs: { type: 'button' } });
  // Run until decided: starts with the runs above and adds batches until ship, hold or no change, or the cap.
  const untilDecided = el('button', { text: 'Run until decided', attrs: { type: 'button', title: 'Add runs in batches until the decision is ship, hold or no change (anytime-valid statistics: looking after every batch does not inflate the error rates), at most the cap per test case. Cancel keeps what was measured.' } });
  const maxRuns = el('input', { attrs: { type: 'number', min: '1', max: String(MAX_PANEL_RUNS), value: '200', id: 'max-runs' } });
  const cancel = el('button', { text: 'Cancel', attrs: { type: 'button', disabled: '' } });
  const progress = el('progress', { attrs: { max: '1', value: '0', 'aria-label': 'progress' } });
  const status = el('p', { className: 'status', attrs: { role: 'status' } });
  const results = el('div', { className: 'results', attrs: { 'aria-live': 'polite' } });
  const controls = el('div', { className: 'controls' }, [
    el('label', { text: 'runs per test case ', attrs: { for: 'runs' } }), runs,
    el('label', { attrs: { for: 'fresh' } }, [fresh, document.createTextNode(' fresh runs (ignore stored runs)')]),
    el('label', { attrs: { for: 'capacity', title: 'After the runs: the largest concurrency at which base and head meet the latency SLOs. The batch scenario gates on it.' } }, [capacity, document.createTextNode(' capacity under SLO (base vs head)')]),
    compare,
    el('label', { text: 'until decided, at most ', attrs: { for: 'max-runs' } }), maxRuns, untilDecided,
    cancel, progress,
  ]);
  app.replaceChildren(el('h2', { text: 'Compare prompt revisions' }), picker, judging, controls, status, results);

  const start = (until: boolean): void => {
    const revs = [...picker.querySelectorAll<HTMLInputElement>('input[type=checkbox]:checked')].map((c) => c.value);
    // Oldest first, so the verdicts read "newer vs older".
    const order = [...picker.querySelectorAll<HTMLInputElement>('input[type=checkbox]')].map((c) => c.value);
    revs.sort((a, b) => order.indexOf(b) - order.indexOf(a));
    const count = Number(runs.value);
    const cap = Number(maxRuns.value);
    if (revs.length < 2) return void (status.textContent = 'Pick at least two revisions.');
    if (!Number.isInteger(count) || count < 1 || count > MAX_PANEL_RUNS) return void (status.textContent = `Runs must be 1–${MAX_PANEL_RUNS}.`);
    if (until && (!Number.isInteger(cap) || cap < count || cap > MAX_PANEL_RUNS)) return void (status.textContent = `The cap must be ${count}–${MAX_PANEL_RUNS} runs per test case.`);
    compare.disabled = true;
    untilDecided.disabled = true;
    cancel.disabled = false;
    status.textContent = 'Running…';
    const policy: JudgeWith = judgeWith.value === 'head' ? 'head' : 'base';
    vscode.postMessage({ type: 'compare', revs, runs: count, fresh: fresh.checked, capacity: capacity.checked, policy, ...(until ? { untilDecided: { maxRuns: cap } } : {}) });
  };
  compare.addEventListener('click', () => start(false));
  untilDecided.addEventListener('click', () => start(true));
  cancel.addEventListener('click', () => vscode.postMessage({ type: 'cancel' }));

  window.addEventListener('message', (event: MessageEvent) => {
    const message: unknown = event.data;
    if (!isHostToWebview(message)) return;
    switch (message.type) {
      case 'history':
        renderPicker(picker, message.revisions, message.preselected);
        if (message.judgeWith) judgeWith.value = message.judgeWith;
        status.textContent = visibleControls(message.notice ?? `${message.revisions.length} revisions of ${message.file}`);
        break;
      case 'progress':
        // A total of 0: work of unknown length (the capacity search's levels), shown as indeterminate.
        if (message.total > 0) {
          progress.max = message.total;
          progress.value = message.done;
        } else progress.removeAttribute('value');
        status.textContent = visibleControls(message.total > 0 ? `${message.done}/${message.total} runs · ${message.message}` : message.message);
        break;
      case 'result':
        compare.disabled = false;
        untilDecided.disabled = false;
        cancel.disabled = true;
        progress.value = progress.max; // determinate again after an indeterminate capacity search
        status.textContent = message.result.cancelled ? 'Cancelled: partial results below.' : 'Done.';
        // The result's "Judge with the head's tests" re-runs the same comparison judged by the head's tests.
        recordRenderTime(renderComparison(results, message.result, { judgeWithHead: () => ((judgeWith.value = 'head'), start(false)) }));
        break;
      case 'error':
        compare.disabled = false;
        untilDecided.disabled = false;
        cancel.disabled = true;
        progress.value = 0;
        status.textContent = visibleControls(message.message);
        break;
    }
  });
  vscode.postMessage({ type: 'ready' });
}

/** `preselected`: the host's choice (core/compare/panelRevisions.ts); without it, the first two entries. */
function renderPicker(picker: HTMLElement, revisions: RevisionChoice[], preselected: readonly string[] = revisions.slice(0, 2).map((r) => r.rev)): void {
  const list = el('ul', { className: 'revisions' });
  revisions.forEach((r, i) => {
    const id = `rev-${i}`;
    const box = el('input', { attrs: { type: 'checkbox', id, value: r.rev } });
    if (preselected.includes(r.rev)) box.checked = true;
    const when = r.date ? r.date.slice(0, 10) : '';
    list.append(el('li', {}, [box, el('label', { attrs: { for: id } }, [el('code', { text: r.label }), document.createTextNode(` ${r.subject ?? ''} `), el('span', { className: 'meta', text: [r.author, when].filter(Boolean).join(' · ') })])]));
  });
  picker.replaceChildren(list);
}
