/**
 * `compare --otlp-endpoint`: the runs compare made, each as a span with its response id and its check as
 * `gen_ai.evaluation.result` events (the homes case on the simulator, a loopback OTLP/HTTP receiver).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../../src/core/sim/simServer';
import { homesRepo } from '../../fixtures/homesRepo';

const CLI = resolve('dist/cli.js');
let sim: RunningSim;
let receiver: Server;
let receiverUrl: string;
const spans: { attributes: { key: string; value: Record<string, unknown> }[]; events?: { name: string; attributes: { key: string; value: Record<string, unknown> }[] }[] }[] = [];

const attrs = (list: { key: string; value: Record<string, unknown> }[]): Record<string, unknown> => Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 20, decodeMsPerToken: 1, jitterMs: 1, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sim.close();
  receiver.close();
});

describe('compare --otlp-endpoint', () => {
  it("sends each run compare made with its response id and its test case's verdict as evaluation events", async () => {
    const { repo, a, b } = homesRepo();
    const result = await new Promise<{ code: number; stderr: string; stdout: string }>((done) =>
      execFile(process.execPath, [CLI, 'compare', 'homes.prompty', '--base', a, '--head', b, '--runs', '3', '--endpoint', sim.url, '--store', 'runs.jsonl', '--json', '--otlp-endpoint', receiverUrl], { cwd: repo.root, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => done({ code: error ? (error as { code: number }).code : 0, stdout, stderr })),
    );
    expect(result.stderr).toMatch(/Sent \d+ spans and their metrics to /);
    const view = JSON.parse(result.stdout);
    const runs = view.revisions.reduce((n: number, r: { runsNew: number }) => n + r.runsNew, 0);
    expect(spans).toHaveLength(runs);
    for (const span of spans) {
      const a = attrs(span.attributes);
      expect(a['gen_ai.response.id']).toMatch(/^chatcmpl-sim-\d+$/);
      const events = (span.events ?? []).filter((e) => e.name === 'gen_ai.evaluation.result');
      expect(events.length).toBeGreaterThanOrEqual(1);
      for (const e of events) expect(['pass', 'fail', 'unscored']).toContain(attrs(e.attributes)['gen_ai.evaluation.score.label']);
    }
    // The verdicts sent are compare's own: as many passes per revision as its adherence says.
    const passesByRevision = new Map<string, number>();
    for (const span of spans) {
      const a = attrs(span.attributes);
      const passed = (span.events ?? []).some((e) => attrs(e.attributes)['gen_ai.evaluation.score.label'] === 'pass');
      if (passed) passesByRevision.set(String(a['prompt_insight.prompt.revision']), (passesByRevision.get(String(a['prompt_insight.prompt.revision'])) ?? 0) + 1);
    }
    for (const r of view.revisions) expect(passesByRevision.get(r.rev) ?? 0).toBe(r.adherence.passed);
  });
});
