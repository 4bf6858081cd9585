/**
 * Seals stored runs with a key that never leaves this machine, so that only runs this machine made
 * are reused. A store arrives with a repository (committed `.prompt-insight/runs.jsonl`) or a copied
 * folder; forged "passing" records in it would otherwise turn a real regression into "no
 * regression". A record's seal is an HMAC-SHA256 of its exact JSON text under the machine key.
 *
 * The key lives in the user's state folder ($PROMPT_INSIGHT_STATE_DIR, else $XDG_STATE_HOME/
 * prompt-insight, else ~/.local/state/prompt-insight), mode 0600, shared by the CLI and the
 * extension of one user. Where it cannot be made, records are written unsealed and nothing is reused.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { createExclusiveFile, makeFolders } from '../files/fileWrite';
import { homedir } from 'node:os';
import { join } from 'node:path';

const SEAL_FIELD = /,"seal":"([0-9a-f]{64})"}$/;
let cachedKey: { folder: string; key: Buffer | undefined } | undefined;

export function stateFolder(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PROMPT_INSIGHT_STATE_DIR) return env.PROMPT_INSIGHT_STATE_DIR;
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'prompt-insight');
}

/** This machine's key: read, or made once (exclusive create, so two processes agree on one key). */
export function machineKey(): Buffer | undefined {
  const folder = stateFolder();
  if (cachedKey?.folder === folder) return cachedKey.key;
  const path = join(folder, 'store-key');
  let key: Buffer | undefined;
  try {
    key = readKey(path);
  } catch {
    try {
      makeFolders(folder, 0o700);
      createExclusiveFile(path, randomBytes(32).toString('hex'), 0o600);
    } catch {
      // another process made it first, or the folder is not writable
    }
    try {
      key = readKey(path);
    } catch {
      key = undefined;
    }
  }
  cachedKey = { folder, key };
  return key;
}

function readKey(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const hex = readFileSync(fd, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error('malformed key');
    return Buffer.from(hex, 'hex');
  } finally {
    closeSync(fd);
  }
}

/** The record's JSON line with its seal appended as the last field (unchanged without a key). */
export function sealLine(json: string, key: Buffer | undefined): string {
  if (!key) return json;
  return `${json.slice(0, -1)},"seal":"${createHmac('sha256', key).update(json).digest('hex')}"}`;
}

/** Whether a stored line carries a valid seal of this machine; and the line without the seal. */
export function checkSeal(line: string, key: Buffer | undefined): { sealed: boolean; json: string } {
  const match = SEAL_FIELD.exec(line);
  if (!match) return { sealed: false, json: line };
  const json = `${line.slice(0, match.index)}}`;
  if (!key) return { sealed: false, json };
  const expected = createHmac('sha256', key).update(json).digest();
  return { sealed: timingSafeEqual(expected, Buffer.from(match[1]!, 'hex')), json };
}

/** For tests that switch state folders within one process. */
export function forgetMachineKey(): void {
  cachedKey = undefined;
}
