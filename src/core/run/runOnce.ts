/** One measured run: send, retry bounded on 429 (honouring Retry-After), build the RunRecord. */
import { buildRunRecord, withOutputEstimate, type RunRecord, type RunText } from '../metrics/runRecord';
import { countWithin, INLINE_COUNT_CHARS } from '../tokens/boundedCount';
import type { TokenEncoder } from '../tokens/engine';
import { scrubSecrets, SecretStream } from '../endpoint/secrets';
import type { ChatTransport } from '../endpoint/transport';
import type { ChatRequest, TimedEvent } from '../endpoint/types';

export interface RunOnceOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  countTokens: (text: string) => number;
  /** Counts answers too large to count at once, within the run's time limit and cancel (boundedCount.ts). */
  encoder?: TokenEncoder;
  inputTokensEstimate: number | null;
  /** Rate-limit retries; each waits Retry-After (capped) or an exponential backoff. */
  maxRetries?: number;
  maxRetryWaitMs?: number;
  /** Each event as it arrives, for streaming the answer into an editor. */
  onText?: (delta: string, kind: 'token' | 'reasoning') => void;
  /** The server answered (`waiting`: for the first token), then the first token came (`streaming`). */
  onStage?: (stage: 'waiting' | 'streaming') => void;
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
    const attemptStart = performance.now();
    const onText = options.onText;
    // Text shown while it streams is scrubbed too, per kind (a secret may be split across deltas).
    const streams = { token: new SecretStream(), reasoning: new SecretStream() };
    const show = (text: string, kind: 'token' | 'reasoning'): void => {
      if (text) onText!(text, kind);
    };
    const onStage = options.onStage;
    let streaming = false;
    const result = await transport.send(request, {
      timeoutMs: options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(onText || onStage
        ? {
            onEvent: (e: TimedEvent) => {
              if (e.kind !== 'token' && e.kind !== 'reasoning') return;
              if (!streaming) {
                streaming = true;
                onStage?.('streaming');
              }
              if (onText) show(streams[e.kind].push(e.text), e.kind);
            },
          }
        : {}),
      ...(onStage ? { onResponseHead: () => onStage('waiting') } : {}),
    });
    if (onText) for (const kind of ['reasoning', 'token'] as const) show(streams[kind].flush(), kind);
    const rateLimit = result.events.find((e) => e.kind === 'error' && e.error.kind === 'rate_limited');
    const generated = result.events.some((e) => e.kind === 'token' || e.kind === 'reasoning');
    if (rateLimit && rateLimit.kind === 'error' && !generated && retries < maxRetries && !options.signal?.aborted) {
      const advised = rateLimit.error.retryAfterSec;
      const waitMs = Math.min(maxWait, advised !== undefined ? advised * 1000 : 500 * 2 ** retries);
      if (await sleep(waitMs, options.signal)) continue;
    }
    const built = buildRunRecord(result, { countTokens: options.countTokens, inputTokensEstimate: options.inputTokensEstimate, retries, ...(options.encoder ? { maxInlineCountChars: INLINE_COUNT_CHARS } : {}) });
    return scrubOutcome(await estimateLargeOutput(built, options, attemptStart + options.timeoutMs));
  }
}

/** A large answer without usage is counted in a worker, within what is left of the run's time. */
async function estimateLargeOutput(outcome: RunOutcome, options: RunOnceOptions, deadline: number): Promise<RunOutcome> {
  const { record, text } = outcome;
  if (record.outputTokens !== null || !options.encoder || !(text.answer || text.reasoning)) return outcome;
  const counted = await countWithin(text.reasoning + text.answer, options.encoder, { deadline, ...(options.signal ? { signal: options.signal } : {}) });
  return counted === null ? outcome : { record: withOutputEstimate(record, counted), text };
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
