/**
 * Versions an application can actually produce, resolved to the prompt file's revisions by `prod` on a real
 * git repository: a deploy commit where the prompt did not change, a registry's integer through the
 * NAME.versions.yaml table, no version at all (matched by the messages sent, template variables and all),
 * the labels of one revision counted as one version; and `prompt-insight version` printing the id to embed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli';
import { HOMES_WITH_RULE, HOMES_WITHOUT_RULE, homesRepo } from '../fixtures/homesRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';
import type { TestRepo } from '../fixtures/gitRepo';

/** The system message a revision of homes.prompty renders for a city, as an app sends it. */
const system = (prompty: string, city: string) => /system:\n([\s\S]*?)\n\nuser:/.exec(prompty)![1]!.trim().replace('{{city}}', city);
const messages = (prompty: string, city: string) => JSON.stringify([{ role: 'system', content: system(prompty, city) }, { role: 'user', content: `Homes in ${city}?` }]);

let repo: TestRepo;
let a: string;
let b: string;
let deploy: string;
const now = Date.now();

beforeAll(() => {
  ({ repo, a, b } = homesRepo());
  deploy = repo.commit('Deploy: app code only', { 'app.js': '1\n' });
  writeFileSync(join(repo.root, 'homes.versions.yaml'), `"3": ${b}\n"9": not-a-commit\n`);
  const at = (i: number) => now - 3_600_000 + i * 1000;
  const spans = [
    // Revision A, tagged with nothing: matched by what it sent (two cities: the variable is a hole in the template).
    ...Array.from({ length: 12 }, (_, i) => otlpSpan({ startMs: at(i), e2eMs: 900, ttftMs: 300, extra: { 'gen_ai.input.messages': messages(HOMES_WITHOUT_RULE, i % 2 ? 'Lyon' : 'Osaka') } })),
    // Revision B under two labels: the deploy commit, and Langfuse's prompt version 3.
    ...Array.from({ length: 10 }, (_, i) => otlpSpan({ promptName: 'homes-assistant', version: deploy, startMs: at(100 + i), e2eMs: 950, ttftMs: 310 })),
    ...Array.from({ length: 6 }, (_, i) => otlpSpan({ promptName: 'homes-assistant', version: '3', identity: 'langfuse', startMs: at(200 + i), e2eMs: 940, ttftMs: 305 })),
    // Messages no revision ever sent: said, not guessed.
    ...Array.from({ length: 4 }, (_, i) => otlpSpan({ startMs: at(300 + i), e2eMs: 800, extra: { 'gen_ai.input.messages': messages('system:\nYou sell boats.\n\nuser:', 'Nice') } })),
  ];
  writeFileSync(join(repo.root, 'traces.jsonl'), `${tracesLine(spans)}\n`);
});

describe('prod: versions an app can produce', () => {
  it('a deploy commit and a registry integer are revision B (one version); untagged calls are matched by content to A', async () => {
    const { code, stdout, stderr } = await runCli(['prod', 'homes.prompty', '--traces', 'traces.jsonl', '--json'], repo.root);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.versions.map((v: { revision: string }) => v.revision)).toEqual([b, a]);
    const [vb, va] = report.versions;
    expect(vb).toMatchObject({ version: deploy, promptName: 'homes-assistant', requests: 16, matchedBy: 'deploy-commit', labels: [{ label: deploy, requests: 10 }, { label: '3', requests: 6 }] });
    expect(va).toMatchObject({ version: a, promptName: 'homes-assistant', requests: 12, matchedBy: 'content', versionFrom: { content: 12 } });
    expect(report.comparison).toMatchObject({ head: deploy, base: a });
    expect(report.sources).toEqual([expect.objectContaining({ source: 'otel-genai', read: 28, modelCalls: 32, skipped: { 'no-prompt-version': 4 } })]);
    expect(report.notes.join('\n')).toMatch(/homes\.versions\.yaml: '9' → 'not-a-commit' is not a commit where homes\.prompty exists/);
  });

  it('says it in words: matched by content, the labels of one revision, what was left out and why', async () => {
    const { stdout } = await runCli(['prod', 'homes.prompty', '--traces', 'traces.jsonl'], repo.root);
    expect(stdout).toMatch(/matched by content/);
    expect(stdout).toMatch(new RegExp(`production labels of this revision: ${deploy} \\(10\\), 3 \\(6\\)`));
    expect(stdout).toMatch(/4 OpenTelemetry GenAI model-call spans left out: no prompt version on them, their parent spans or the Resource, and their messages match no revision of the file/);
  });

  it('`version` prints the last commit of a committed, unchanged file; the content hash once it changes, which prod maps to the working copy', async () => {
    const committed = await runCli(['version', 'homes.prompty'], repo.root);
    expect(committed.code).toBe(0);
    expect(committed.stdout.trim()).toBe(b);
    writeFileSync(join(repo.root, 'homes.prompty'), HOMES_WITH_RULE.replace('short list', 'brief list'));
    const changed = await runCli(['version', 'homes.prompty', '--json'], repo.root);
    const label = JSON.parse(changed.stdout).versions[0].version;
    expect(label).toMatch(/^sha256:[0-9a-f]{16}$/);
    writeFileSync(join(repo.root, 'working.jsonl'), `${tracesLine([otlpSpan({ promptName: 'homes-assistant', version: label, startMs: now - 1000, e2eMs: 500 })])}\n`);
    const report = JSON.parse((await runCli(['prod', 'homes.prompty', '--traces', 'working.jsonl', '--json'], repo.root)).stdout);
    expect(report.versions[0]).toMatchObject({ revision: 'working', matchedBy: 'content-hash' });
    repo.git('checkout', '--', 'homes.prompty');
  });
});
