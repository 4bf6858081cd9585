/**
 * What the editor's production actions show, from real trace files in a real repository: the sample
 * preview holds the cases exactly as the tests file then gets them, an API key in a user's message
 * already redacted; the gray-release document says the verdict and its reasons in words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideGrayRelease } from '../../../src/core/release/grayRelease';
import { planSample, writeSample } from '../../../src/core/sampling/sampleIntoTests';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { grayReleaseMarkdown, samplePreviewMarkdown, writeButtonLabel } from '../../../src/extension/production/productionActionText';
import { TestRepo } from '../../fixtures/gitRepo';
import MarkdownIt from 'markdown-it';
import { otlpSpan, tracesLine } from '../../fixtures/otlpTraces';
import { PROMPT } from '../../fixtures/sampledPrompt';

const NOW = Date.parse('2026-12-04T23:50:00Z');
/** Markdown as VS Code's preview renders it (markdown-it, HTML and linkify on). */
const render = (markdown: string): string => new MarkdownIt({ html: true, linkify: true }).render(markdown);
const KEY = 'sk-proj-abcdefghijklmnopqrstuvwx';
let repo: TestRepo;
let v1: string;

const messages = (request: string) => JSON.stringify([
  { role: 'system', parts: [{ type: 'text', content: 'You are a real-estate assistant for Austin, TX. List single-family homes only.' }] },
  { role: 'user', parts: [{ type: 'text', content: request }] },
]);

beforeAll(() => {
  const origin = new TestRepo();
  v1 = origin.commit('Homes', { 'homes.prompty': PROMPT }).slice(0, 7);
  repo = origin.clone();
  const requests = ['Homes under $500k.', `Use key ${KEY} to look them up.`, 'Three bedrooms near a school.'];
  repo.write('traces.jsonl', `${tracesLine(requests.map((r, i) => otlpSpan({ promptName: 'homes-assistant', version: v1, startMs: NOW - (i + 1) * 60_000, e2eMs: 1000 + i * 100, ttftMs: 200, extra: { 'gen_ai.input.messages': messages(r) } })))}\n`);
});

describe('the sample preview', () => {
  it('shows the redacted cases as they will be appended, and writing appends exactly those', async () => {
    const file = join(repo.root, 'homes.prompty');
    const prompt = parsePromptFile(file, PROMPT, 'prompty').prompts[0]!;
    const plan = await planSample({ file, prompt, traces: [join(repo.root, 'traces.jsonl')], out: join(repo.root, 'homes.tests.yaml'), n: 50, strategy: 'random', seed: 1, nowMs: NOW, willWrite: true });
    const text = samplePreviewMarkdown(plan, { file: 'homes.prompty', testsFile: 'homes.tests.yaml', range: 'last 24 hours' });
    expect(text).toContain('3 production requests of homes-assistant, 3 with captured input. **3 cases** would be appended after the 0 existing cases.');
    expect(text).toContain(`Nothing is written until you choose "${writeButtonLabel(3, 'homes.tests.yaml')}".`);
    expect(text).toMatch(/Redacted before writing: 1 [a-z-]+ \(shown below as \[REDACTED:kind\]\)\./);
    expect(text).not.toContain(KEY);
    expect(text).toMatch(/request: Use key \[REDACTED:[a-z-]+\] to look them up\./);
    writeSample(plan);
    const written = readFileSync(join(repo.root, 'homes.tests.yaml'), 'utf8');
    expect(written).not.toContain(KEY);
    // Every line of the preview's YAML is in the file (indented under tests:).
    const yaml = text.split('```yaml\n')[1]!.split('\n```')[0]!;
    for (const line of yaml.split('\n')) expect(written).toContain(line.trim());
    // As the Markdown preview shows it: each case in a line, the counts in bold.
    const html = render(text);
    expect(html).toContain('<strong>3 cases</strong> would be appended');
    expect(html).toMatch(/<p>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z · version [0-9a-f]{7} · took [\d.]+ m?s · variables city, request<\/p>/);
  });

  it('what production recorded (a version name, a variable name) is shown as written, never rendered', async () => {
    const file = join(repo.root, 'homes.prompty');
    const prompt = parsePromptFile(file, PROMPT, 'prompty').prompts[0]!;
    const plan = await planSample({ file, prompt, traces: [join(repo.root, 'traces.jsonl')], out: join(repo.root, 'hostile.tests.yaml'), n: 50, strategy: 'random', seed: 1, nowMs: NOW, willWrite: false });
    const hostile = '![x](https://tracker.example/p.png)<img src=x>';
    const cases = plan.result.cases.map((c) => ({ ...c, version: hostile }));
    const html = render(samplePreviewMarkdown({ ...plan, result: { ...plan.result, cases } }, { file: 'homes.prompty', testsFile: 'hostile.tests.yaml', range: 'last 24 hours' }));
    expect(html).not.toMatch(/<img|<a /);
    expect(html).toContain('version ![x](https://tracker.example/p.png)&lt;img src=x&gt; · took');
  });
});

describe('the gray-release document', () => {
  it('says NOT ENOUGH DATA YET with why, when production served only one of the two versions', async () => {
    const result = await decideGrayRelease({ file: join(repo.root, 'homes.prompty'), promptName: 'homes-assistant', traces: [join(repo.root, 'traces.jsonl')], base: v1, head: 'b2c3d4e', policyFrom: 'base', untilMs: NOW });
    const text = grayReleaseMarkdown(result, { file: 'homes.prompty', range: 'every request in the trace files', policy: 'base' });
    // As the Markdown preview shows it.
    const html = render(text);
    expect(html.split('\n').slice(0, 3)).toEqual(['<h1>Gray release: NOT ENOUGH DATA YET</h1>', `<p><strong>NOT ENOUGH DATA YET b2c3d4e (against ${v1})</strong></p>`, '<p>Production has not yet shown enough to decide either way: keep the split and decide again later.</p>']);
    expect(html).toContain('<li>version b2c3d4e served no request of this prompt in the source');
    expect(html).toContain(`head b2c3d4e against base ${v1} (3 requests)`);
  });

  it('a version name from the traces is shown as written, never rendered as an image, a link or a tag', async () => {
    const result = await decideGrayRelease({ file: join(repo.root, 'homes.prompty'), promptName: 'homes-assistant', traces: [join(repo.root, 'traces.jsonl')], base: v1, head: 'b2c3d4e', policyFrom: 'base', untilMs: NOW });
    const hostile = '![x](https://tracker.example/p.png)<img src=x>';
    const text = grayReleaseMarkdown({ ...result, decision: { ...result.decision, head: hostile, reasons: [`version ${hostile} served no request`] }, notes: [`[click](https://evil.example) *${hostile}*`] }, { file: 'homes.prompty', range: 'every request', policy: 'base' });
    const html = render(text);
    expect(html).not.toMatch(/<img|<a |<em>/);
    expect(html).toContain('<li>version ![x](https://tracker.example/p.png)&lt;img src=x&gt; served no request</li>');
    expect(html).toContain('<li>[click](https://evil.example) *![x]');
  });
});
