/**
 * Consent, on the command line, to the URL a prompt's retrieval step names — the CLI's counterpart
 * of the editor's dialog (extension/endpoints/retrievalConsent.ts). A cloned repository can name any URL
 * (a loopback daemon, an internal service, a host of its own), so its origin must be allowed by the
 * user: `--allow-retrieval ORIGIN` (repeatable), the environment variable
 * PROMPT_INSIGHT_ALLOW_RETRIEVAL, or `"allowRetrieval"` in the user's config file — never by a file
 * in the repository or the working directory. Without it the command exits 2 before anything is sent.
 */
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { retrievalDestination } from '../core/retrieval/retrievalStep';
import { UsageError, type ParsedArgs } from './args';

export const RETRIEVAL_REPEATABLE = ['allow-retrieval'];
export const ALLOW_RETRIEVAL_VARIABLE = 'PROMPT_INSIGHT_ALLOW_RETRIEVAL';
const CONFIG_MAX_BYTES = 64 * 1024;

/** The user's config file: $PROMPT_INSIGHT_CONFIG_DIR, else $XDG_CONFIG_HOME/prompt-insight (%APPDATA% on Windows), else ~/.config/prompt-insight. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PROMPT_INSIGHT_CONFIG_DIR) return join(env.PROMPT_INSIGHT_CONFIG_DIR, 'config.json');
  const base = env.XDG_CONFIG_HOME || (process.platform === 'win32' && env.APPDATA) || join(homedir(), '.config');
  return join(base, 'prompt-insight', 'config.json');
}

/** `http://127.0.0.1:8000` from an origin or a URL; undefined for anything that is not http(s). */
function originOf(text: string): string | undefined {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function originsFrom(entries: readonly string[], where: string): string[] {
  return entries.map((entry) => {
    const origin = originOf(entry);
    if (!origin) throw new UsageError(`${where}: '${entry}' is not an http(s) origin (e.g. http://127.0.0.1:8000)`);
    return origin;
  });
}

/** Origins in the user's config file (none when there is no file). */
function configOrigins(path: string): string[] {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new UsageError(`${path} is not a regular file`);
    size = stat.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return [];
  }
  if (size > CONFIG_MAX_BYTES) throw new UsageError(`${path} is larger than ${CONFIG_MAX_BYTES / 1024} KiB; it is not read`);
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON (${(error as Error).message})`);
  }
  const list = config && typeof config === 'object' ? (config as { allowRetrieval?: unknown }).allowRetrieval : undefined;
  if (list === undefined) return [];
  if (!Array.isArray(list) || !list.every((e) => typeof e === 'string')) throw new UsageError(`${path}: "allowRetrieval" must be a list of origins, e.g. ["http://127.0.0.1:8000"]`);
  return originsFrom(list, `${path}: allowRetrieval`);
}

/** Every origin the user allowed: the command line's, the environment's, the user config file's. */
export function allowedRetrievalOrigins(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): Set<string> {
  const fromFlag = originsFrom(args.lists.get('allow-retrieval') ?? [], '--allow-retrieval');
  const fromEnv = originsFrom((env[ALLOW_RETRIEVAL_VARIABLE] ?? '').split(/[\s,]+/).filter(Boolean), ALLOW_RETRIEVAL_VARIABLE);
  return new Set([...fromFlag, ...fromEnv, ...configOrigins(userConfigPath(env))]);
}

/**
 * Refuses (a UsageError: exit 2) when a retrieval step would send its query to an origin the user
 * has not allowed. `what` names the prompt (and revision) whose step it is.
 */
export function refuseUnallowedRetrieval(args: ParsedArgs, url: string | undefined, what: string, env: NodeJS.ProcessEnv = process.env): void {
  if (url === undefined) return;
  const origin = originOf(url);
  if (origin && allowedRetrievalOrigins(args, env).has(origin)) return;
  throw new UsageError(
    `${what} has a retrieval step: before each run it sends its query to ${retrievalDestination(url)}, a URL the prompt file names (a cloned repository can name any).\n` +
      `Nothing was sent. If you trust that service, allow its origin: --allow-retrieval ${origin ?? retrievalDestination(url)} ` +
      `(or list it in ${ALLOW_RETRIEVAL_VARIABLE}, or under "allowRetrieval" in ${userConfigPath(env)}).`,
  );
}
