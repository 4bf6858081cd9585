/**
 * Loading a model's tokenizer from a folder the user named (a downloaded model: `tokenizer.json`,
 * `tokenizer_config.json`, maybe `chat_template.jinja`): lazily, once per folder and file version,
 * with every file bounded. Who named the folder decides what may be read: a folder from the
 * workspace's own settings must lie inside the workspace and is read with the workspace-file rules
 * (a repository cannot make the product read ~/.ssh); a folder the user named (user settings, the
 * command line) may be anywhere, and is still read with those rules when it lies in the workspace.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { findWorkspaceRoot, readUserFile, readWorkspaceFile, WorkspaceFileError } from '../files/workspaceFile';
import { configChatTemplate, createModelTokenizer, isRecord, specialTokenValues, TokenizerFileError, type ModelTokenizer } from './modelTokenizer';

/** Gemma 3's tokenizer.json is 32 MB, Qwen3's 11 MB, Llama 3's 9 MB. */
export const TOKENIZER_JSON_MAX_BYTES = 64 * 1024 * 1024;
/** Gemma 3's tokenizer_config.json is 1.2 MB (every added token listed). */
export const TOKENIZER_CONFIG_MAX_BYTES = 8 * 1024 * 1024;
const CHAT_TEMPLATE_MAX_BYTES = 1024 * 1024;
/** Loaded tokenizers kept at once (each holds its vocabulary: 50–300 MB of heap for the big ones). */
const MAX_LOADED = 3;

/** Who named the folder: the user (user settings, `--tokenizer`) or the workspace (its settings). */
export type TokenizerOrigin = 'user' | 'workspace';

export interface TokenizerSource {
  /** The folder, or its tokenizer.json. */
  path: string;
  origin: TokenizerOrigin;
}

const loaded = new Map<string, Promise<ModelTokenizer>>();

/** The tokenizer of a folder; the same promise while the folder's files are unchanged. Rejects with TokenizerFileError or WorkspaceFileError. */
export async function loadTokenizerFolder(source: TokenizerSource, workspaceFolders: readonly string[] = []): Promise<ModelTokenizer> {
  const folder = /\.json$/i.test(source.path) ? dirname(resolve(source.path)) : resolve(source.path);
  const read = fileReader(folder, source.origin, workspaceFolders);
  const version = await fileVersion(join(folder, 'tokenizer.json'));
  const key = `${source.origin}\u0000${folder}\u0000${version}`;
  let promise = loaded.get(key);
  if (promise) {
    loaded.delete(key); // most recently used last
  } else {
    promise = loadFolder(folder, read, key);
    promise.catch(() => undefined);
  }
  loaded.set(key, promise);
  while (loaded.size > MAX_LOADED) loaded.delete(loaded.keys().next().value!);
  return promise;
}

type Reader = (name: string, maxBytes: number) => Promise<Buffer | undefined>;

async function loadFolder(folder: string, read: Reader, key: string): Promise<ModelTokenizer> {
  const tokenizerBytes = await read('tokenizer.json', TOKENIZER_JSON_MAX_BYTES);
  if (!tokenizerBytes) throw new TokenizerFileError(`${folder} has no tokenizer.json (the model's folder, as downloaded, has one)`);
  const configBytes = await read('tokenizer_config.json', TOKENIZER_CONFIG_MAX_BYTES);
  const tokenizerJson = parseJson(tokenizerBytes, 'tokenizer.json');
  const config = configBytes ? parseJson(configBytes, 'tokenizer_config.json') : {};
  if (!isRecord(config)) throw new TokenizerFileError('tokenizer_config.json is not a JSON object');
  const tokenizer = createModelTokenizer(tokenizerJson, config, `tokenizer.json of ${basename(folder)}`, `tokenizer.json:${key}`);
  const fromConfig = configChatTemplate(config);
  const jinjaFile = fromConfig === undefined ? await read('chat_template.jinja', CHAT_TEMPLATE_MAX_BYTES) : undefined;
  const template = fromConfig ?? jinjaFile?.toString('utf8');
  const from = fromConfig !== undefined ? 'tokenizer_config.json' : 'chat_template.jinja';
  return { ...tokenizer, ...(template ? { chatTemplate: { template, from, values: specialTokenValues(config) } } : {}) };
}

function fileReader(folder: string, origin: TokenizerOrigin, workspaceFolders: readonly string[]): Reader {
  const inWorkspace = workspaceFolders.some((w) => isInside(resolve(w), folder));
  if (origin === 'workspace' && !inWorkspace) {
    throw new WorkspaceFileError(
      'outside-workspace',
      folder,
      `${folder} is outside the workspace: a tokenizer folder named in the workspace's settings must lie inside it. Name folders elsewhere in your user settings (promptInsight.tokens.tokenizers).`,
    );
  }
  return async (name, maxBytes) => {
    const file = join(folder, name);
    try {
      if (inWorkspace) return await readWorkspaceFile(file, { root: findWorkspaceRoot(file, { workspaceFolders }), maxBytes, what: 'tokenizer files' });
      return await readUserFile(file, maxBytes, 'tokenizer files');
    } catch (error) {
      if (error instanceof WorkspaceFileError && error.kind === 'not-found') return undefined;
      throw error;
    }
  };
}

async function fileVersion(file: string): Promise<string> {
  try {
    const info = await stat(file);
    return `${info.size}:${info.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

function parseJson(bytes: Buffer, name: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new TokenizerFileError(`${name} is not valid JSON (${(error as Error).message})`);
  }
}

function isInside(outer: string, inner: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith('/') ? outer : `${outer}/`);
}
