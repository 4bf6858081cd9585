/**
 * The demo's week of production traces (examples/telemetry/homes-week.jsonl.gz, made by the OpenTelemetry SDK
 * from requests to the simulator) on the homes repository with its two revisions, moved in time as the demo
 * moves it: `prod` names both versions by their content hash with their requests, `watch` finds the slow night,
 * `sample` writes cases with the pasted API key redacted, and `prod --decide` promotes revision B. The CLI as a
 * child process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../fixtures/cli';
import { ANOMALY_END_MS, ANOMALY_START_MS, DEMO_TRACES_END_MS, demoTracesEndingAt, FAKE_KEY, GRAY_10_MS } from '../fixtures/demoTraces';
import { contentLabels } from '../../src/core/telemetry/prodVersions';
import { HOMES_WITHOUT_RULE, HOMES_WITH_RULE, homesRepo } from '../fixtures/homesRepo';
import type { TestRepo } from '../fixtures/gitRepo';

/** A Thursday afternoon: the week is moved by a whole number of hours, as the demo moves it to the current hour. */
const END_MS = Date.UTC(2026, 11, 17, 15);
const SHIFT_MS = END_MS - DEMO_TRACES_END_MS;
const NOW = new Date(END_MS).toISOString();
const TRACES = 'telemetry/homes-week.jsonl.gz';

let repo: TestRepo;
let a: string;
let b: string;
/** Each revision's label in production: the prompt's content hash, as `prompt-insight version` prints it for the text. */
const labels: Record<'a' | 'b', string> = { a: '', b: '' };

beforeAll(async () => {
  ({ repo, a, b } = homesRepo());
  repo.write(TRACES, demoTracesEndingAt(END_MS));
  labels.a = (await contentLabels('homes.prompty', HOMES_WITHOUT_RULE)).get('homes-assistant')!;
  labels.b = (await contentLabels('homes.prompty', HOMES_WITH_RULE)).get('homes-assistant')!;
});

interface ProdVersion {
  version: string;
  revision: string | null;
  matchedBy: string | null;
  requests: number;
  errors: number;
  firstSeen: string;
}

describe('the demo week of production traces', () => {
  it('prod: both revisions, by content hash, with their requests; B first seen when its gray release began', async () => {
    const out = await runCli(['prod', 'homes.prompty', '--traces', TRACES, '--since', '7d', '--now', NOW, '--json'], repo.root);
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as { versions: ProdVersion[] };
    const byRevision = new Map(report.versions.map((v) => [v.revision, v]));
    const va = byRevision.get(a)!;
    const vb = byRevision.get(b)!;
    expect(va.version).toBe(labels.a);
    expect(vb.version).toBe(labels.b);
    expect([va.matchedBy, vb.matchedBy]).toEqual(['content-hash', 'content-hash']);
    expect(va.requests).toBeGreaterThan(2000);
    expect(vb.requests).toBeGreaterThan(200);
    expect(vb.requests).toBeLessThan(va.requests / 4);
    expect(va.errors).toBeGreaterThan(0);
    const grayStart = GRAY_10_MS + SHIFT_MS;
    expect(Date.parse(vb.firstSeen)).toBeGreaterThanOrEqual(grayStart);
    expect(Date.parse(vb.firstSeen)).toBeLessThan(grayStart + 3_600_000);
    const text = await runCli(['prod', 'homes.prompty', '--traces', TRACES, '--since', '7d', '--now', NOW], repo.root);
    expect(text.stdout).toContain(`version ${labels.b} (homes-assistant) · ${b.slice(0, 10)}`);
    expect(text.stdout).toMatch(new RegExp(`version ${labels.a} \\(homes-assistant\\) · ${a.slice(0, 10)}[^\\n]*\\n  ${va.requests} requests`));
  });

  it('watch: finds the slow night in TTFT p99, with its hours, and does not blame the gray release', async () => {
    const out = await runCli(['watch', 'homes.prompty', '--traces', TRACES, '--now', NOW, '--json'], repo.root);
    expect(out.code).toBe(0); // the anomaly is over: nothing ongoing
    const report = JSON.parse(out.stdout) as { anomalies: { metric: string; start: string; end: string | null; version: string | null }[] };
    // The slow night is found (a noisy hour next to it may join it: p99 of a dozen night-time requests).
    const night = report.anomalies.filter((x) => x.metric === 'ttft.p99' && Date.parse(x.start) < ANOMALY_END_MS + SHIFT_MS && (x.end === null || Date.parse(x.end) > ANOMALY_START_MS + SHIFT_MS));
    expect(night).toHaveLength(1);
    const ttft = night;
    // The provider was slow for both versions: the release, hours before, is not named as its cause.
    expect([labels.a, labels.b]).toContain(ttft[0]!.version);
    expect(report.anomalies.some((x) => 'likelyCause' in x)).toBe(false);
    const text = await runCli(['watch', 'homes.prompty', '--traces', TRACES, '--now', NOW], repo.root);
    expect(text.stdout).toContain(ttft[0]!.start);
  });

  it('sample: test cases from production with the pasted API key redacted', async () => {
    const out = await runCli(['sample', 'homes.prompty', '--traces', TRACES, '--now', NOW, '--n', '200', '--seed', '7', '--out', 'sampled.tests.yaml', '--json'], repo.root);
    expect(out.code).toBe(0);
    const written = readFileSync(join(repo.root, 'sampled.tests.yaml'), 'utf8');
    expect(written).not.toContain(FAKE_KEY);
    expect(written).not.toContain('T3BlbkFJ');
    // B's cases are its variables; A's keep production's user turn (A's text no longer matches the template on disk).
    const cases = (parse(written) as { tests: { vars?: { request: string }; turns?: { content: string }[] }[] }).tests;
    expect(cases.length).toBeGreaterThan(5);
    const asked = cases.map((c) => c.vars?.request ?? c.turns!.map((t) => t.content).join('\n'));
    const redacted = asked.filter((text) => text.includes('OPENAI_API_KEY=') || text.includes('my key is'));
    expect(redacted.length).toBeGreaterThan(0);
    expect(out.stdout + out.stderr).toMatch(/openai-api-key/);
  });

  it('prod --decide: promotes B — adherence up, latency and errors unchanged over the hours both served', async () => {
    const out = await runCli(['prod', 'homes.prompty', '--traces', TRACES, '--since', '7d', '--now', NOW, '--decide', '--base', labels.a, '--head', labels.b, '--registry-rev', 'HEAD', '--fail-on-regression', '--no-store', '--json'], repo.root);
    const report = JSON.parse(out.stdout) as { decision: { decision: string; reasons: string[] }; versions: (ProdVersion & { adherence?: { rate: number } })[] };
    expect(report.decision.decision).toBe('promote');
    expect(out.code).toBe(0);
    const adherence = new Map(report.versions.map((v) => [v.version, v.adherence?.rate]));
    expect(adherence.get(labels.b)!).toBeGreaterThan(0.9);
    expect(adherence.get(labels.a)!).toBeLessThan(0.6);
  });
});

