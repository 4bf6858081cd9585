/**
 * Messages between the review page (webview) and the extension host: the host sends one item at a time
 * and the queue's progress; the page sends the reviewer's verdict on it. Validated on receipt; imports
 * nothing from vscode or node.
 */

export interface ReviewMessageView {
  role: string;
  content: string;
}

/** One item as the page shows it: the check, the rendered input, the context and the answer. */
export interface ReviewItemView {
  id: string;
  check: string;
  /** What the check asks, in its own words (the rubric, the judge prompt, the expected text). */
  criterion: string;
  /** A GitHub llm evaluator's choices, labelled 1–9 as well as pass/fail. */
  choices: string[];
  input: ReviewMessageView[];
  vars: { name: string; value: string }[];
  context?: string;
  answer: string;
  origin: string;
}

export interface ReviewProgress {
  /** 1-based place of the item shown. */
  position: number;
  total: number;
  labelled: number;
  skipped: number;
}

export type HostToReviewPage =
  | { type: 'reviewItem'; item: ReviewItemView; progress: ReviewProgress }
  | { type: 'reviewDone'; progress: ReviewProgress; labelsFile: string }
  | { type: 'reviewStatus'; text: string };

export type ReviewVerdictMessage = 'pass' | 'fail' | { choice: string };

export type ReviewPageToHost =
  | { type: 'reviewReady' }
  | { type: 'reviewLabel'; id: string; verdict: ReviewVerdictMessage; comment?: string; correction?: string }
  | { type: 'reviewSkip'; id: string };

const MAX_COMMENT = 20_000;
const MAX_CORRECTION = 200_000;
const isId = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{1,64}$/.test(v);
const optionalText = (v: unknown, max: number) => v === undefined || (typeof v === 'string' && v.length <= max);

export function isReviewPageToHost(value: unknown): value is ReviewPageToHost {
  const v = value as { type?: unknown; id?: unknown; verdict?: unknown; comment?: unknown; correction?: unknown } | null;
  if (typeof v !== 'object' || v === null) return false;
  if (v.type === 'reviewReady') return true;
  if (v.type === 'reviewSkip') return isId(v.id);
  if (v.type !== 'reviewLabel' || !isId(v.id)) return false;
  const verdict = v.verdict as { choice?: unknown } | string;
  const verdictOk = verdict === 'pass' || verdict === 'fail' || (typeof verdict === 'object' && verdict !== null && typeof verdict.choice === 'string' && verdict.choice.length > 0 && verdict.choice.length <= 200);
  return verdictOk && optionalText(v.comment, MAX_COMMENT) && optionalText(v.correction, MAX_CORRECTION);
}

export function isHostToReviewPage(value: unknown): value is HostToReviewPage {
  const v = value as { type?: unknown; item?: unknown; progress?: unknown; text?: unknown; labelsFile?: unknown } | null;
  if (typeof v !== 'object' || v === null) return false;
  if (v.type === 'reviewStatus') return typeof v.text === 'string';
  if (v.type === 'reviewDone') return typeof v.labelsFile === 'string' && typeof v.progress === 'object' && v.progress !== null;
  return v.type === 'reviewItem' && typeof v.item === 'object' && v.item !== null && typeof v.progress === 'object' && v.progress !== null;
}
