/** One measured run: send, retry bounded on 429 (honouring Retry-After), build the RunRecord. */
import { buildRunRecord, type RunRecord, type RunText } from '../metrics/runRecord';
import { scrubSecrets, SecretStream } from './secrets';
import type { ChatTransport } from './transport';
import type { ChatRequest, TimedEvent } from './types';

export interface RunOnceOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  countTokens: (text: string) => number;
  inputTokensEstimate: number | null;
  /** Rate-limit retries; each waits Retry-After (capped) or an exponential backoff. */
  maxRetries?: number;
  maxRetryWaitMs?: number;
  /** Each event as it arrives, for streaming the answer into an editor. */
  onText?: (delta: string, kind: 'token' | 'reasoning') => void;
}

export interface RunOutcome {
  record: RunRecord;
  text: RunText;
}

const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_MAX_RETRY_WAIT_MS = 30_000;

export async function runOnce(transport: ChatTransport, request: ChatRequest, options: RunOnceOptions): Promise<RunOutcome> {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxWait = options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  for (let retries = 0; ; retries++) {
    const onText = options.onText;
    // Text shown while it streams is scrubbed too, per kind (a secret may be split across deltas).
    const streams = { token: new SecretStream(), reasoning: new SecretStream() };
    const show = (text: string, kind: 'token' | 'reasoning'): void => {
      if (text) onText!(text, kind);
    };
    const result = await transport.send(request, {
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(onText ? { onEvent: (e: TimedEvent) => (e.kind === 'token' || e.kind === 'reasoning') && show(streams[e.kind].push(e.text), e.kind) } : {}),
    });
    if (onText) for (const kind of ['reasoning', 'token'] as const) show(streams[kind].flush(), kind);
    const rateLimit = result.events.find((e) => e.kind === 'error' && e.error.kind === 'rate_limited');
    const generated = result.events.some((e) => e.kind === 'token' || e.kind === 'reasoning');
    if (rateLimit && rateLimit.kind === 'error' && !generated && retries < maxRetries && !options.signal?.aborted) {
      const advised = rateLimit.error.retryAfterSec;
      const waitMs = Math.min(maxWait, advised !== undefined ? advised * 1000 : 500 * 2 ** retries);
      if (await sleep(waitMs, options.signal)) continue;
    }
    return scrubOutcome(buildRunRecord(result, { countTokens: options.countTokens, inputTokensEstimate: options.inputTokensEstimate, retries }));
  }
}

/** No credential in what a run keeps: the answer, the reasoning, the error message. */
function scrubOutcome(outcome: RunOutcome): RunOutcome {
  const { record, text } = outcome;
  return {
    record: record.error ? { ...record, error: { ...record.error, message: scrubSecrets(record.error.message) } } : record,
    text: { answer: scrubSecrets(text.answer), reasoning: scrubSecrets(text.reasoning) },
  };
}

/** Resolves true after `ms`, false at once if `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
