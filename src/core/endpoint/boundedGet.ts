/**
 * A keyless GET to a server we only observe (its kind, its metrics), bounded in time and size: the
 * body is read chunk by chunk and dropped past the limit, so a hostile or broken server cannot
 * fill memory or stall the runs. The error says what went wrong, and never carries the URL: a user
 * name and password written into it are neither sent (the request goes without credentials) nor
 * printed, and they are registered as secrets so that no other text shows them either.
 */
import { readBodyBounded } from './boundedBody';
import { registerUrlSecrets } from './secrets';

export function boundedGet(url: string, timeoutMs: number, maxBytes: number): Promise<{ text: string; contentType: string } | { error: string }> {
  return boundedRequest(url, timeoutMs, maxBytes);
}

/**
 * A keyless POST of a JSON body with the same bounds (a server's `/tokenize` and `/apply-template`):
 * the key, when the user gave one for that server, goes as a bearer token and nowhere else.
 */
export function boundedPostJson(url: string, body: unknown, timeoutMs: number, maxBytes: number, apiKey?: string): Promise<{ text: string; contentType: string } | { error: string }> {
  return boundedRequest(url, timeoutMs, maxBytes, { body: JSON.stringify(body), ...(apiKey ? { apiKey } : {}) });
}

async function boundedRequest(url: string, timeoutMs: number, maxBytes: number, post?: { body: string; apiKey?: string }): Promise<{ text: string; contentType: string } | { error: string }> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { error: 'not a URL' };
  }
  if (target.username || target.password) {
    registerUrlSecrets(url);
    target.username = '';
    target.password = '';
  }
  try {
    const init: RequestInit = post
      ? { method: 'POST', body: post.body, headers: { 'content-type': 'application/json', ...(post.apiKey ? { authorization: `Bearer ${post.apiKey}` } : {}) } }
      : {};
    const response = await fetch(target, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    if (!response.ok) {
      await response.body?.cancel();
      return { error: `HTTP ${response.status}` };
    }
    // A body declared larger than the bound is refused before a byte of it is read.
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel();
      return { error: `more than ${maxBytes} bytes` };
    }
    if (!response.body) return { error: 'no body' };
    const body = await readBodyBounded(response, maxBytes);
    if ('tooLarge' in body) return { error: `more than ${maxBytes} bytes` };
    return { text: body.text, contentType: response.headers.get('content-type') ?? '' };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return { error: `no answer within ${timeoutMs} ms` };
    // fetch's messages may quote the URL; its cause (ECONNREFUSED…) is what the user can act on.
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : (error as Error).message;
    return { error: `cannot read it (${detail.split(url).join(safeForm(target)).split(target.href).join(safeForm(target))})` };
  }
}

function safeForm(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
