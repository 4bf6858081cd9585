/**
 * Hygiene of the language server, through the real server over stdio: every child process it starts
 * is reaped. Production reads run in a worker thread that renders each revision's prompts in render
 * processes and runs git; after seven reads (seven real Genkit Dotprompt files in a real git repo,
 * real OTLP trace files) the server's children, read from /proc, are its two kept render processes
 * and nothing else — no zombie (state Z). Routine reads log at info, a source that gives nothing at warning.
 */
import { copyFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DidChangeConfigurationNotification, DidOpenTextDocumentNotification } from 'vscode-languageserver-protocol/node';
import { productionViewRequest, type ProductionViewResult } from '../../src/protocol/productionRequest';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import { LspHarness } from './lspHarness';

const GENKIT = 'test/fixtures/realworld/firebase/genkit/py/samples';
const PROMPTS = [
  'fastapi-bugbot/prompts/analyze_security.prompt',
  'fastapi-bugbot/prompts/analyze_bugs.prompt',
  'fastapi-bugbot/prompts/analyze_diff.prompt',
  'fastapi-bugbot/prompts/analyze_style.prompt',
  'prompts/prompts/recipe.prompt',
  'prompts/prompts/story.prompt',
  'evaluators/prompts/maliciousness.prompt',
];
/** The server's long-lived children: one render process per engine group (core/render/renderer.ts). */
const KEPT_RENDER_PROCESSES = ['renderHandlebars.js', 'renderInterpreted.js'];
const MESSAGE_TYPE = { warning: 2, info: 3 };

let repo: TestRepo;
let server: LspHarness;

/** The children of a process as /proc has them: pid, state (Z: exited, never waited for) and the script a node child runs. */
function childrenOf(ppid: number): { pid: number; state: string; script: string }[] {
  const children = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    let command: string[];
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      continue; // ended while listed
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so fields are read after the last ')'.
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(parent) === ppid) children.push({ pid: Number(entry), state: state!, script: basename(command.at(-1) ?? '') });
  }
  return children;
}

type Child = ReturnType<typeof childrenOf>[number];
const reaped = (children: Child[]): boolean => children.every((child) => child.state !== 'Z');
const onlyKept = (children: Child[]): boolean => reaped(children) && children.map((child) => child.script).sort().join() === KEPT_RENDER_PROCESSES.join();

/**
 * The server's children once they are as expected, or as they are after 10 s: a render process the
 * server itself just replaced (a render past its deadline on a busy machine) is reaped by its event
 * loop a moment after the kill. A zombie of an ended worker never is.
 */
async function childrenOnceSettled(expected: (children: Child[]) => boolean): Promise<Child[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const children = childrenOf(server.pid);
    if (expected(children) || Date.now() > until) return children;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function openAndReadProduction(path: string): Promise<ProductionViewResult> {
  const uri = pathToFileURL(join(repo.root, path)).toString();
  await server.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'dotprompt', version: 1, text: readFileSync(join(repo.root, path), 'utf8') } });
  // Show Production waits for the file's read to finish (the server's 30 s view wait).
  return server.connection.sendRequest(productionViewRequest, { uri, promptIndex: 0 });
}

beforeAll(async () => {
  repo = new TestRepo();
  for (const path of PROMPTS) copyFileSync(join(GENKIT, path), join(repo.root, basename(path)));
  const version = repo.commit('Genkit samples').slice(0, 7);
  const now = Date.now();
  const spans = PROMPTS.flatMap((path, p) => Array.from({ length: 5 }, (_, i) => otlpSpan({ promptName: basename(path, '.prompt'), version, startMs: now - 60_000 * (p * 5 + i + 1), ttftMs: 200 + i, e2eMs: 600 + i })));
  repo.write('traces/app.jsonl', `${tracesLine(spans)}\n`);
  server = new LspHarness();
  await server.initialize({ settings: { production: { sources: [{ traces: 'traces/*.jsonl' }] } }, workspaceFolders: [repo.root], workspaceTrusted: true }, 'as-given');
});

afterAll(async () => {
  await server?.dispose();
  rmSync(repo.root, { recursive: true, force: true });
});

it('after seven production reads the server has no defunct child and no stray one: only its two kept render processes', async () => {
  const answers = [];
  for (const path of PROMPTS) answers.push(await openAndReadProduction(basename(path)));
  // Each read's answer has arrived: the worker that read it, and every process it started, are done.
  const children = await childrenOnceSettled(onlyKept);
  expect(children.filter((child) => child.state === 'Z')).toEqual([]);
  expect(children.map((child) => child.script).sort()).toEqual(KEPT_RENDER_PROCESSES);
  // And the reads gave numbers: five requests of each prompt.
  expect(answers.map((answer) => (answer && 'view' in answer ? answer.view.sources[0]!.versions.map((v) => v.requests) : answer))).toEqual(PROMPTS.map(() => [5]));
  // The worker's render processes say nothing on the server's stderr (the server reports its own once).
  expect(server.stderr).not.toContain('render in a separate process');
});

it('routine reads log at info; a source that gives nothing logs at warning', async () => {
  const production = server.logMessages.filter((m) => m.message.startsWith('Production'));
  expect(production.length).toBe(PROMPTS.length);
  expect(production.every((m) => m.type === MESSAGE_TYPE.info && /^Production: reading 1 source for .* \(in a worker thread\)\.$/.test(m.message))).toBe(true);

  await server.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: { promptInsight: { production: { sources: [{ traces: 'traces/gone.jsonl' }] } } } });
  const answer = await openAndReadProduction(basename(PROMPTS[0]!));
  expect(answer && 'view' in answer ? answer.view.sources[0]!.error : answer).toContain("'traces/gone.jsonl' was not found");
  const problem = server.logMessages.find((m) => m.message.includes('gone.jsonl'));
  expect(problem).toMatchObject({ type: MESSAGE_TYPE.warning });
  expect(problem!.message).toContain("Production (traces traces/gone.jsonl) for");
  expect((await childrenOnceSettled(reaped)).filter((child) => child.state === 'Z')).toEqual([]);
});
