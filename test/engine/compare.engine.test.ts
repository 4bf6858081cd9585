/**
 * `prompt-insight compare` between two revisions from git, against llama-server: fresh runs of both
 * revisions are cold by default (each revision's prompt re-processed, not served from the cache the
 * other one or a repeat left), and the JSON says how the server was measured.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestRepo } from '../fixtures/gitRepo';
import { startLlamaServer, type LlamaServer } from './llamaServer';

const run = promisify(execFile);
let llama: LlamaServer;
let repo: TestRepo;
let a: string;

const prompt = (rule: string) => `---\nname: homes\nmodel:\n  id: model.gguf\n  options:\n    max_tokens: 8\n---\nsystem:\nYou list homes for sale.${rule}\n\nuser:\nFind homes in {{city}}.\n`;

beforeAll(async () => {
  llama = await startLlamaServer();
  repo = new TestRepo();
  const tests = 'tests:\n  - description: Bellevue\n    vars:\n      city: Bellevue\n    assert:\n      - type: icontains\n        value: house\n';
  a = repo.commit('first', { 'homes.prompty': prompt(''), 'homes.tests.yaml': tests });
  repo.commit('define homes', { 'homes.prompty': prompt(` ${'A home is a single-family house with its own land. '.repeat(10)}`) });
}, 120_000);
afterAll(async () => llama?.stop());

describe('compare against llama-server', () => {
  it('measures both revisions fresh and cold, and reports verdicts without a crash on a random model', async () => {
    // One run at a time on the one-slot server: with more in flight, TTFT would be the queue behind the other revision.
    const { stdout } = await run(process.execPath, [resolve('dist/cli.js'), 'compare', 'homes.prompty', '--base', a, '--head', 'HEAD', '--runs', '3', '--concurrency', '1', '--endpoint', `${llama.url}/v1`, '--json', '--no-store'], { cwd: repo.root, timeout: 240_000 }).catch((error: { stdout: string }) => error);
    const json = JSON.parse(stdout);
    const [base, head] = json.revisions;
    expect(base.ttftMs.n).toBe(3);
    expect(head.ttftMs.n).toBe(3);
    // The head's longer system message takes longer to prefill: cold runs show it.
    expect(head.tokens).toBeGreaterThan(base.tokens);
    expect(head.ttftMs.p50).toBeGreaterThan(base.ttftMs.p50);
    expect(json.verdicts.map((v: { metric: string }) => v.metric)).toContain('ttftMs');
    // One batch for both revisions, on the server's clock: six interleaved runs, and llama-server's
    // own metrics sampled over the same time (the panel plots them together).
    expect(json.timeline.serverKind).toBe('llama.cpp');
    expect(json.timeline.runs).toHaveLength(6);
    expect(new Set(json.timeline.runs.map((r: { revision: string }) => r.revision)).size).toBe(2);
    expect(json.timeline.server.length).toBeGreaterThan(0);
    expect(Math.max(...json.timeline.server.map((m: { requestsRunning: number | null }) => m.requestsRunning ?? 0))).toBe(1);
    // Three runs per side are too few to decide: the rollout says so.
    expect(json.rollout.decision).toBe('insufficient');
  });
});
