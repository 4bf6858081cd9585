/**
 * Issue 38's bar: the language server answers hovers, lenses and symbols of other files within
 * 200 ms while a tokenizer.json with a pattern only a worker may run (`(a|aa)+(?=b)`, 60 a's) is
 * counting. Measured over stdio against the built server (dist/server.js), each request after an
 * edit of the other file so it is analysed again, while the stuck count runs to its deadline.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { CodeLensRequest, DocumentSymbolRequest, HoverRequest } from 'vscode-languageserver-protocol/node';
import { LspHarness } from '../test/server/lspHarness';
import { fmt, median, quantile, table } from './stats';

const ROUNDS = 40;

export async function benchHostileTokenizer(): Promise<string> {
  const base = realpathSync((mkdirSync('/tmp/prompt-insight-test', { recursive: true }), '/tmp/prompt-insight-test'));
  const folder = join(base, `bench-hostile-${process.pid}`);
  mkdirSync(folder, { recursive: true });
  const vocab = Object.fromEntries([...' ab!\n'].map((c, i) => [c, i]).concat([['aa', 10]]));
  const split = { type: 'Split', pattern: { Regex: '(a|aa)+(?=b)' }, behavior: 'Isolated', invert: false };
  writeFileSync(join(folder, 'tokenizer.json'), JSON.stringify({ model: { type: 'BPE', vocab, merges: ['a a'] }, normalizer: null, pre_tokenizer: split, decoder: null, post_processor: null, added_tokens: [] }));
  const prompt = (model: string, content: string) => `name: p\nmodel: ${model}\nmessages:\n  - role: user\n    content: ${JSON.stringify(content)}\n`;

  process.env.PROMPT_INSIGHT_TOKENIZER_DEADLINE_MS = '30000'; // the stuck count outlasts every measured request
  const server = new LspHarness();
  delete process.env.PROMPT_INSIGHT_TOKENIZER_DEADLINE_MS;
  await server.initialize({ workspaceFolders: [base], settings: { tokens: { tokenizers: { 'mistral*': folder } } } }, 'trusted');
  const { uri } = await server.open(`bench-hostile-${process.pid}/other.prompt.yml`, prompt('gpt-4o', 'Name three rivers.'));
  const stuckName = `bench-hostile-${process.pid}/stuck.prompt.yml`;
  void server.open(stuckName, prompt('mistral-7b', `${'a'.repeat(60)}!`));
  let stuckDone = false;
  const stuck = server.connection.sendRequest(HoverRequest.type, { textDocument: { uri: pathToFileURL(join(base, stuckName)).toString() }, position: { line: 4, character: 8 } }).then(() => (stuckDone = true));

  const times: Record<string, number[]> = { hover: [], 'code lenses': [], 'document symbols': [] };
  for (let round = 0; round < ROUNDS; round++) {
    await server.change(uri, round + 2, [{ text: prompt('gpt-4o', `Name ${round} rivers.`) }]);
    const timed = async (name: string, request: () => Promise<unknown>) => {
      const t0 = performance.now();
      await request();
      times[name]!.push(performance.now() - t0);
    };
    await timed('hover', () => server.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 4, character: 8 } }));
    await timed('code lenses', () => server.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } }));
    await timed('document symbols', () => server.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } }));
  }
  const stillCounting = !stuckDone;
  await server.dispose();
  void stuck.catch(() => undefined);
  const rows = Object.entries(times).map(([name, ms]) => [name, ms.length, fmt(median(ms)), fmt(quantile(ms, 0.95)), fmt(Math.max(...ms))]);
  return `## Language server while a hostile tokenizer.json counts (bar: 200 ms)\n\nThe stuck count was ${stillCounting ? 'still running' : 'over'} when the last request was answered.\n\n${table(['another file, after an edit', 'requests', 'median ms', 'p95 ms', 'max ms'], rows)}`;
}
