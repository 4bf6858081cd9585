/**
 * The review page: one item at a time (the check, the rendered input, the context, the answer), the
 * reviewer's keystroke appended to the labels file as one line, the next item sent. Every label is on
 * disk before the next item shows, so closing the panel loses nothing, and opening it again resumes
 * (the queue leaves out what this reviewer labelled: core/review/reviewQueue.ts).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { standaloneReportHtml } from '../../core/compare/report';
import { scrubSecrets } from '../../core/endpoint/secrets';
import { appendWorkspaceFile } from '../../core/files/workspaceWrite';
import type { Prompt } from '../../core/formats/model';
import { labelLine, type ReviewItem, type ReviewVerdict } from '../../core/review/reviewQueue';
import { renderPromptRequest } from '../../core/run/promptRequest';
import { isReviewPageToHost, type HostToReviewPage, type ReviewItemView, type ReviewPageToHost, type ReviewProgress, type ReviewVerdictMessage } from '../../protocol/reviewWebview';

export interface ReviewSession {
  /** The prompt file as shown ("prompts/homes.prompty"). */
  fileLabel: string;
  promptText: string;
  prompt: Prompt;
  items: ReviewItem[];
  author: string;
  labelsPath: string;
  workspaceRoot: string;
  /** Told after each label is written (the trust card's cache, the tests). */
  onLabelled?: (written: number) => void;
}

export function openReviewPanel(context: vscode.ExtensionContext, session: ReviewSession, log: vscode.LogOutputChannel): vscode.WebviewPanel {
  const title = `Review: ${session.prompt.name}`;
  const panel = vscode.window.createWebviewPanel('promptInsight.review', title, vscode.ViewColumn.Active, { enableScripts: true, localResourceRoots: [], retainContextWhenHidden: true });
  const assets = { script: readFileSync(context.asAbsolutePath('dist/webview.js'), 'utf8'), css: readFileSync(context.asAbsolutePath('media/panel.css'), 'utf8') };
  panel.webview.html = standaloneReportHtml(title, { page: 'review', file: session.fileLabel, prompt: session.prompt.name, reviewer: session.author, labelsFile: basename(session.labelsPath) }, assets);
  const queue = new ReviewQueueState(session, (message) => void panel.webview.postMessage(message), log);
  const listener = panel.webview.onDidReceiveMessage((message: unknown) => {
    // From the webview: only the typed messages are acted on.
    if (isReviewPageToHost(message)) void queue.answer(message);
  });
  panel.onDidDispose(() => listener.dispose());
  return panel;
}

class ReviewQueueState {
  private index = 0;
  private labelled = 0;
  private skipped = 0;
  /** Rendered inputs by the item's variables: many answers share a test case. */
  private readonly inputs = new Map<string, Promise<ReviewItemView['input']>>();

  constructor(
    private readonly session: ReviewSession,
    private readonly post: (message: HostToReviewPage) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async answer(message: ReviewPageToHost): Promise<void> {
    if (message.type === 'reviewReady') return this.show();
    const item = this.session.items[this.index];
    // A verdict on an item no longer shown (a key pressed twice) changes nothing.
    if (!item || item.id !== message.id) return;
    if (message.type === 'reviewLabel') {
      try {
        // A key an endpoint echoed into an answer never reaches the committed labels file.
        appendWorkspaceFile(this.session.labelsPath, scrubSecrets(labelLine({ item, verdict: verdictOf(message.verdict), author: this.session.author, time: new Date(), ...(message.comment ? { comment: message.comment } : {}), ...(message.correction ? { correction: message.correction } : {}) })), { root: this.session.workspaceRoot, what: 'labels files' });
      } catch (error) {
        // Not written: the item stays, and the page says why.
        this.post({ type: 'reviewStatus', text: `The label was not written: ${(error as Error).message}` });
        this.log.warn(`Review: the label was not written to ${this.session.labelsPath}: ${(error as Error).message}`);
        return;
      }
      this.labelled++;
      this.session.onLabelled?.(this.labelled);
    } else this.skipped++;
    this.index++;
    return this.show();
  }

  private async show(): Promise<void> {
    const item = this.session.items[this.index];
    if (!item) {
      this.post({ type: 'reviewDone', progress: this.progress(), labelsFile: basename(this.session.labelsPath) });
      return;
    }
    // The page never shows a key an endpoint echoed back (the keys this window uses are redacted).
    const view = JSON.parse(scrubSecrets(JSON.stringify(await this.view(item)))) as ReviewItemView;
    this.post({ type: 'reviewItem', item: view, progress: this.progress() });
  }

  private progress(): ReviewProgress {
    return { position: Math.min(this.index + 1, this.session.items.length), total: this.session.items.length, labelled: this.labelled, skipped: this.skipped };
  }

  private async view(item: ReviewItem): Promise<ReviewItemView> {
    const key = JSON.stringify(item.vars);
    let input = this.inputs.get(key);
    if (!input) {
      input = this.rendered(item.vars);
      this.inputs.set(key, input);
    }
    return {
      id: item.id,
      check: item.check.name,
      criterion: criterionOf(item),
      choices: item.check.choices,
      input: await input,
      vars: Object.entries(item.vars).map(([name, value]) => ({ name, value: typeof value === 'string' ? value : JSON.stringify(value) })),
      ...(item.context ? { context: item.context } : {}),
      answer: item.answer,
      origin: item.origin,
    };
  }

  /** The messages the answer was asked with; when they cannot be rendered here, none (the variables still show). */
  private async rendered(vars: Record<string, unknown>): Promise<ReviewItemView['input']> {
    try {
      const { request } = await renderPromptRequest(this.session.promptText, this.session.prompt, vars, { endpointDefault: 'review' });
      return request.messages.map((m) => ({ role: m.role, content: m.content }));
    } catch {
      return [];
    }
  }
}

function verdictOf(verdict: ReviewVerdictMessage): ReviewVerdict {
  if (verdict === 'pass') return { kind: 'pass' };
  if (verdict === 'fail') return { kind: 'fail' };
  return { kind: 'choice', value: verdict.choice };
}

/** What the check asks, as its tests file says it. */
function criterionOf(item: ReviewItem): string {
  const { assertion } = item.check;
  if (assertion.judge) return assertion.judge.prompt;
  const value = typeof assertion.value === 'string' ? assertion.value : assertion.value === undefined ? '' : JSON.stringify(assertion.value);
  if (assertion.type === 'llm-rubric') return `${assertion.negate ? 'Must not hold: ' : ''}${value}`;
  return `${assertion.negate ? 'not-' : ''}${assertion.type}${value ? `: ${value}` : ''}`;
}
