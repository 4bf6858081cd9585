/**
 * The language server over stdio, as the extension starts it: it honours workspace trust (Restricted
 * Mode unless told otherwise; rendering starts when trust is granted) and, trusted, an opened prompt
 * file cannot run code (issue 20's chain, with canaries). Build first (`npm run build`).
 */
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderedPromptRequest } from '../../src/protocol/lsp';
import { AFTER_THE_ATTACK, canariesIn, dotprompt, HANDLEBARS_WALKS, jinjaChain, LEAKS, MUSTACHE_WALKS, mustachePrompty, prompty } from '../fixtures/isolation/attackPrompts';
import { LspHarness } from './lspHarness';

/** The harness opens documents under this folder; files a prompt names are written there too. */
const BASE = '/tmp/prompt-insight-test';
mkdirSync(BASE, { recursive: true });
const FOLDER = `security-${process.pid}`;
const DIR = join(realpathSync(BASE), FOLDER);
mkdirSync(DIR, { recursive: true });

const servers: LspHarness[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.dispose()));
});

async function startServer(options: Record<string, unknown>, trust: 'trusted' | 'as-given'): Promise<LspHarness> {
  const server = new LspHarness();
  servers.push(server);
  await server.initialize({ workspaceFolders: [BASE], ...options }, trust);
  return server;
}

async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function contentsOf(server: LspHarness, uri: string): Promise<string[]> {
  const rendered = await server.connection.sendRequest(renderedPromptRequest, { uri, promptIndex: 0 });
  return rendered!.messages.map((m) => m.content);
}

const GREETING = '---\nname: greet\nmodel:\n  configuration:\n    name: gpt-4o\nsample:\n  who: Ada\n  facts: ${file:facts.json}\n---\nuser:\nHello {{ who }} from {{ facts.city }}\n';

describe('workspace trust', () => {
  it('untrusted (the client says nothing): nothing rendered, no file read, no render process; trust granted → rendered', async () => {
    writeFileSync(join(DIR, 'facts.json'), '{"city": "Bellevue"}');
    writeFileSync(join(DIR, 'greet.prompty'), GREETING);
    const server = await startServer({}, 'as-given');
    const { uri, diagnostics } = await server.open(`${FOLDER}/greet.prompty`, GREETING);
    expect(diagnostics.map((d) => d.code)).toEqual(['untrusted-workspace']);
    expect(diagnostics[0]!.message).toMatch(/Restricted Mode.*not rendered.*not read.*counted as written/);
    expect(await contentsOf(server, uri)).toEqual(['Hello {{ who }} from {{ facts.city }}']);
    expect(server.logs.join('\n')).toContain('Restricted Mode');
    expect(server.logs.join('\n')).not.toContain('render in a separate process');

    const republished = server.nextDiagnostics(uri, 1);
    await server.connection.sendNotification('promptInsight/workspaceTrusted', {});
    expect((await republished).map((d) => d.code)).toEqual([]);
    expect(await contentsOf(server, uri)).toEqual(['Hello Ada from Bellevue']);
    await until('the render process report', () => server.logs.some((line) => line.includes('render in a separate process')));
  }, 30_000);

  it('a prompt with no template or reference gets no Restricted Mode note', async () => {
    const server = await startServer({ workspaceTrusted: false }, 'as-given');
    const { diagnostics } = await server.open(`${FOLDER}/plain.prompty`, '---\nname: plain\n---\nuser:\nFind homes.\n');
    expect(diagnostics).toEqual([]);
  }, 30_000);

  it('the extension says trusted at start: rendered at once, the render process isolation is logged', async () => {
    writeFileSync(join(DIR, 'facts.json'), '{"city": "Bellevue"}');
    const server = await startServer({}, 'trusted');
    const { uri, diagnostics } = await server.open(`${FOLDER}/greet2.prompty`, GREETING);
    expect(diagnostics).toEqual([]);
    expect(await contentsOf(server, uri)).toEqual(['Hello Ada from Bellevue']);
    await until('the render process report', () => server.logs.some((line) => /render in a separate process under Node's permission model/.test(line)));
  }, 30_000);
});

describe('opening an attacking prompt file in a trusted workspace', () => {
  it('the chain runs nothing (canaries), leaks nothing, and the next file renders clean', async () => {
    const canaries = canariesIn(DIR);
    const server = await startServer({}, 'trusted');
    const chain = await server.open(`${FOLDER}/chain.prompty`, prompty('chain', jinjaChain(canaries)));
    // Refused by the engine: a template error, the text counted as written.
    expect(chain.diagnostics.map((d) => d.code)).toContain('template-error');
    const after = await server.open(`${FOLDER}/after.prompty`, prompty('after', AFTER_THE_ATTACK));
    expect(await contentsOf(server, after.uri)).toEqual(['||Ann', 'hi']);
    const walk = await server.open(`${FOLDER}/walk.prompty`, mustachePrompty('walk', MUSTACHE_WALKS));
    expect(await contentsOf(server, walk.uri)).toEqual(['||||', 'hi']);
    const hbs = await server.open(`${FOLDER}/walk.prompt`, dotprompt(HANDLEBARS_WALKS));
    const hbsText = (await contentsOf(server, hbs.uri)).join('\n');
    expect(hbsText).toContain('||||||');
    expect(LEAKS.filter((leak) => hbsText.includes(leak))).toEqual([]);
    // Its process reads only its own script (no shared library beside it), so the permission model holds.
    expect(server.logs.find((line) => line.startsWith('Dotprompt (Handlebars) templates render'))).toMatch(/under Node's permission model/);
    expect(existsSync(canaries.written)).toBe(false);
    expect(existsSync(canaries.spawned)).toBe(false);
  }, 30_000);
});
