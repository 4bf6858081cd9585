/**
 * The credentials this process knows (API keys, credential-bearing headers, passwords in endpoint and
 * proxy URLs), and the one function that removes them from any text before it leaves the process.
 * A server may echo the request's headers in an error body or even in its answer; that text goes to
 * stderr, `--json`, the results store, exports, reports, logs and run documents — each of those
 * passes its text through `scrubSecrets` (or a `SecretStream` for text shown while it streams).
 */

const MIN_SECRET_CHARS = 6;
export const REDACTED = '[REDACTED]';
// One registry per process, not per bundle: the extension's activation bundle (which scrubs its log)
// and its features bundle (which registers the keys) each carry a copy of this module.
interface Registry {
  known: Set<string>;
  ordered: string[];
}
const registry: Registry = ((globalThis as Record<symbol, unknown>)[Symbol.for('promptInsight.secrets')] ??= { known: new Set<string>(), ordered: [] }) as Registry;
const known = registry.known;

/** Remembers a credential and the forms a server or serialiser may print it in. */
export function registerSecret(value: string | undefined): void {
  if (!value || value.length < MIN_SECRET_CHARS) return;
  const forms = [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1), Buffer.from(value, 'utf8').toString('base64')];
  let added = false;
  for (const form of forms) {
    if (form.length >= MIN_SECRET_CHARS && !known.has(form)) {
      known.add(form);
      added = true;
    }
  }
  // Longest first, so that a key is removed whole before any shorter secret inside it.
  if (added) registry.ordered = [...known].sort((a, b) => b.length - a.length);
}

/** Registers the password (and the Basic credentials made from it) of a `scheme://user:pass@host` URL, and its query values. */
export function registerUrlSecrets(url: string | undefined): void {
  if (!url) return;
  let parsed: URL;
  try {
    parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`);
  } catch {
    const password = /\/\/[^:/@\s]*:([^/@\s]*)@/.exec(url)?.[1];
    registerSecret(password);
    return;
  }
  if (parsed.password) {
    registerSecret(parsed.password);
    const user = safeDecode(parsed.username);
    const password = safeDecode(parsed.password);
    registerSecret(password);
    registerSecret(`${user}:${password}`);
  }
  for (const [, value] of parsed.searchParams) registerSecret(value);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function scrubSecrets(text: string): string {
  if (registry.ordered.length === 0 || !text) return text;
  let result = text;
  for (const secret of registry.ordered) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  return result;
}

/**
 * Scrubs text that arrives in pieces: a secret split across two pieces is still removed, because the
 * tail of what has arrived is held back while it could be the start of a secret.
 */
export class SecretStream {
  private pending = '';

  push(piece: string): string {
    if (registry.ordered.length === 0) return piece;
    this.pending = scrubSecrets(this.pending + piece);
    const hold = heldBackLength(this.pending);
    const ready = this.pending.slice(0, this.pending.length - hold);
    this.pending = this.pending.slice(this.pending.length - hold);
    return ready;
  }

  flush(): string {
    const rest = scrubSecrets(this.pending);
    this.pending = '';
    return rest;
  }
}

/** Length of the longest end of `text` that is a proper beginning of a known secret. */
function heldBackLength(text: string): number {
  let longest = 0;
  const last = text.charCodeAt(text.length - 1);
  for (const secret of registry.ordered) {
    for (let n = Math.min(secret.length - 1, text.length); n > longest; n--) {
      if (secret.charCodeAt(n - 1) === last && text.endsWith(secret.slice(0, n))) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}

/** For tests: forget every registered secret. */
export function forgetSecrets(): void {
  known.clear();
  registry.ordered = [];
}
