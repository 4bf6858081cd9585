/**
 * The review page: one answer and one check at a time, labelled with a key — P pass, F fail, 1–9 a
 * declared choice, S or → skip, C comment, E corrected answer. The host writes each label before it
 * sends the next item, so the page holds no state worth losing.
 */
import { isHostToReviewPage, type ReviewItemView, type ReviewPageToHost, type ReviewProgress, type ReviewVerdictMessage } from '../src/protocol/reviewWebview';
import { el, visibleControls } from './dom';

export interface ReviewStart {
  page: 'review';
  file: string;
  prompt: string;
  reviewer: string;
  labelsFile: string;
}

export function isReviewStart(value: unknown): value is ReviewStart {
  const v = value as Partial<ReviewStart> | null;
  return typeof v === 'object' && v !== null && v.page === 'review' && typeof v.file === 'string' && typeof v.prompt === 'string' && typeof v.reviewer === 'string' && typeof v.labelsFile === 'string';
}

export function startReview(app: HTMLElement, start: ReviewStart, post: (message: ReviewPageToHost) => void): void {
  const progressText = el('p', { className: 'review-progress', attrs: { role: 'status' } });
  const bar = el('progress', { attrs: { max: '1', value: '0', 'aria-label': 'labelled so far' } });
  const status = el('p', { className: 'status', attrs: { role: 'alert' } });
  const itemBox = el('section', { className: 'review-item', attrs: { 'aria-live': 'polite' } });
  const comment = el('textarea', { attrs: { id: 'review-comment', rows: '2', placeholder: 'Comment (C to write, Esc to go back to the keys)', 'aria-label': 'comment' } });
  const correction = el('textarea', { attrs: { id: 'review-correction', rows: '4', placeholder: 'The answer as it should have been (E to write, Esc to go back)', 'aria-label': 'corrected answer' } });
  const keys = el('div', { className: 'review-keys controls' });
  app.replaceChildren(
    el('h2', { text: `Review answers · ${start.prompt}` }),
    el('p', { className: 'meta', text: `${start.file} · labels go to ${start.labelsFile} as ${start.reviewer}` }),
    el('div', { className: 'controls' }, [progressText, bar]),
    keys, status, itemBox,
    el('details', {}, [el('summary', { text: 'Comment and corrected answer (kept with the next label)' }), comment, correction]),
  );
  let current: ReviewItemView | undefined;
  /** The item whose verdict was sent: shown again if the host could not write it (the status says why). */
  let sent: ReviewItemView | undefined;

  const send = (kind: 'pass' | 'fail' | 'skip' | { choice: string }): void => {
    if (!current) return;
    status.textContent = '';
    if (kind === 'skip') post({ type: 'reviewSkip', id: current.id });
    else {
      const verdict: ReviewVerdictMessage = kind;
      post({ type: 'reviewLabel', id: current.id, verdict, ...(comment.value.trim() ? { comment: comment.value } : {}), ...(correction.value.trim() ? { correction: correction.value } : {}) });
    }
    // Waits for the host's next item: a second key on the same item changes nothing.
    sent = current;
    current = undefined;
  };
  const writeIn = (box: HTMLTextAreaElement): void => {
    (box.closest('details') as HTMLDetailsElement).open = true;
    box.focus();
  };

  const button = (key: string, words: string, act: () => void): HTMLButtonElement => {
    const b = el('button', { attrs: { type: 'button', 'data-key': key, title: `key ${key}` } }, [el('kbd', { text: key }), document.createTextNode(` ${words}`)]);
    b.addEventListener('click', act);
    return b;
  };
  const drawKeys = (choices: string[]): void => {
    keys.replaceChildren(
      button('P', 'Pass', () => send('pass')),
      button('F', 'Fail', () => send('fail')),
      ...choices.slice(0, 9).map((choice, i) => button(String(i + 1), choice, () => send({ choice }))),
      button('S', 'Skip', () => send('skip')),
      button('C', 'Comment', () => writeIn(comment)),
      button('E', 'Correct the answer', () => writeIn(correction)),
    );
  };

  document.addEventListener('keydown', (event) => {
    if (event.target instanceof HTMLTextAreaElement) {
      if (event.key === 'Escape' || (event.key === 'Enter' && (event.ctrlKey || event.metaKey))) {
        event.preventDefault();
        event.target.blur();
        app.focus();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key.toLowerCase();
    const choice = current && /^[1-9]$/.test(key) ? current.choices[Number(key) - 1] : undefined;
    const act =
      key === 'p' ? () => send('pass')
      : key === 'f' ? () => send('fail')
      : key === 's' || key === 'n' || key === 'arrowright' ? () => send('skip')
      : key === 'c' ? () => writeIn(comment)
      : key === 'e' ? () => writeIn(correction)
      : choice !== undefined ? () => send({ choice })
      : undefined;
    if (!act) return;
    event.preventDefault();
    act();
  });

  const showProgress = (progress: ReviewProgress): void => {
    progressText.textContent = `Answer ${progress.position} of ${progress.total} · ${progress.labelled} labelled · ${progress.skipped} skipped`;
    bar.max = Math.max(progress.total, 1);
    bar.value = progress.labelled + progress.skipped;
  };

  window.addEventListener('message', (event: MessageEvent) => {
    const message: unknown = event.data;
    if (!isHostToReviewPage(message)) return;
    if (message.type === 'reviewStatus') {
      status.textContent = visibleControls(message.text);
      // Not written: the same item takes keys again, its comment and correction kept.
      current ??= sent;
    }
    else if (message.type === 'reviewDone') {
      current = undefined;
      showProgress(message.progress);
      keys.replaceChildren();
      itemBox.replaceChildren(el('p', { className: 'review-done', text: `Done: ${message.progress.labelled} labelled, ${message.progress.skipped} skipped. The labels are in ${message.labelsFile}; commit it to share them.` }));
    } else {
      current = message.item;
      sent = undefined;
      comment.value = '';
      correction.value = '';
      showProgress(message.progress);
      drawKeys(message.item.choices);
      itemBox.replaceChildren(...itemNodes(message.item));
      itemBox.dataset.itemId = message.item.id;
    }
  });
  app.tabIndex = -1;
  app.focus();
  post({ type: 'reviewReady' });
}

function itemNodes(item: ReviewItemView): Node[] {
  const nodes: Node[] = [
    el('h3', { text: `Check: ${item.check}` }),
    el('p', { className: 'review-criterion', text: item.criterion }),
  ];
  if (item.input.length > 0) {
    nodes.push(el('details', { className: 'review-input' }, [
      el('summary', { text: `Input: ${item.input.length} message${item.input.length === 1 ? '' : 's'}${item.vars.length ? ` · ${item.vars.map((v) => `${v.name} = ${short(v.value)}`).join(' · ')}` : ''}` }),
      ...item.input.map((m) => el('div', {}, [el('strong', { text: m.role }), el('pre', { className: 'review-text', text: m.content })])),
    ]));
  } else if (item.vars.length > 0) {
    nodes.push(el('p', { className: 'meta', text: `Inputs: ${item.vars.map((v) => `${v.name} = ${short(v.value)}`).join(' · ')}` }));
  }
  if (item.context) nodes.push(el('details', { className: 'review-context' }, [el('summary', { text: 'Retrieved context' }), el('pre', { className: 'review-text', text: item.context })]));
  nodes.push(el('h3', { text: 'Answer' }), el('pre', { className: 'review-text review-answer', text: item.answer }), el('p', { className: 'meta', text: item.origin }));
  return nodes;
}

function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
