/**
 * `watch` names the version that went live and what moved with the anomaly: a deploy at 14:20 makes the
 * 14:00 hour depart — the anomaly's version is the new one, its likely cause that deploy; input tokens per
 * request rising with it point at the prompt, TPOT rising at flat input at decoding. A step change after a
 * deploy is judged against the hours before it, so a short history (eight days, on a Saturday) does not let
 * the band absorb a live 2× regression. Times are anchored to a fixed week and watch is asked `--now`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/cli';
import { TestRepo } from '../fixtures/gitRepo';
import { otlpSpan, tracesLine } from '../fixtures/otlpTraces';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Friday 2026-12-04, 14:20 UTC: the deploy. */
const DEPLOY = Date.parse('2026-12-04T14:20:00Z');

let repo: TestRepo;

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

interface Shape {
  deploy: number;
  /** After the deploy: TTFT, decoding and input tokens multiplied by these. */
  ttft?: number;
  decode?: number;
  input?: number;
}

/** 20 requests an hour from `from` to `until`: TTFT with a 14:00 peak and lower weekends; v2 from the deploy, shaped by `after`. */
function traffic(from: number, until: number, shape: Shape, seed: number): string {
  const r = random(seed);
  const spans = [];
  for (let t = from; t < until; t += 180_000) {
    const after = t >= shape.deploy;
    const date = new Date(t);
    const hour = date.getUTCHours();
    const weekend = date.getUTCDay() === 0 || date.getUTCDay() === 6;
    const base = (300 + 150 * Math.exp(-((hour - 14) ** 2) / 8)) * (weekend ? 0.8 : 1) * (0.9 + 0.2 * r());
    const ttftMs = base * (after ? (shape.ttft ?? 1) : 1);
    const outputTokens = 60;
    const tpotMs = 10 * (0.95 + 0.1 * r()) * (after ? (shape.decode ?? 1) : 1);
    spans.push(otlpSpan({ promptName: 'homes-assistant', version: after ? 'b7e1c2d' : 'a1b2c3d', startMs: t, ttftMs, e2eMs: ttftMs + tpotMs * (outputTokens - 1), outputTokens, inputTokens: Math.round(1200 * (after ? (shape.input ?? 1) : 1)) }));
  }
  const lines: string[] = [];
  for (let i = 0; i < spans.length; i += 400) lines.push(tracesLine(spans.slice(i, i + 400)));
  return `${lines.join('\n')}\n`;
}

async function watch(file: string, now: number) {
  const { code, stdout, stderr } = await runCli(['watch', 'homes.prompty', '--traces', file, '--now', new Date(now).toISOString(), '--json'], repo.root);
  expect(stderr).toBe('');
  return { code, json: JSON.parse(stdout) };
}

beforeAll(() => {
  repo = new TestRepo();
  repo.commit('Homes', { 'homes.prompty': '---\nname: homes-assistant\n---\nsystem:\nYou list homes.\n\nuser:\n{{request}}\n' });
  const now = DEPLOY + 4 * HOUR;
  // A longer prompt: 60% more input tokens, TTFT 60% higher (more to prefill).
  writeFileSync(join(repo.root, 'prompt.jsonl'), traffic(DEPLOY - 21 * DAY, now, { deploy: DEPLOY, ttft: 1.6, input: 1.6 }, 1));
  // Slower decoding at the same input: E2E up, TTFT as before.
  writeFileSync(join(repo.root, 'decode.jsonl'), traffic(DEPLOY - 21 * DAY, now, { deploy: DEPLOY, decode: 1.8 }, 2));
  // Eight days of history, a deploy on Friday 10:00 doubling TTFT, asked on Saturday evening.
  writeFileSync(join(repo.root, 'step.jsonl'), traffic(Date.parse('2026-11-27T10:00:00Z'), Date.parse('2026-12-05T20:10:00Z'), { deploy: Date.parse('2026-12-04T10:00:00Z'), ttft: 2 }, 3));
});

describe('watch: the version that went live and what moved with it', () => {
  it('a deploy at 14:20 inside the first anomalous hour: the new version, its deploy as likely cause, the prompt grew', async () => {
    const { code, json } = await watch('prompt.jsonl', DEPLOY + 4 * HOUR - 10 * 60_000);
    expect(code).toBe(1);
    const ttft = json.anomalies.find((a: { metric: string }) => a.metric === 'ttft.p99');
    expect(ttft).toMatchObject({ start: '2026-12-04T14:00:00.000Z', end: null, version: 'b7e1c2d', likelyCause: { version: 'b7e1c2d', firstSeen: '2026-12-04T14:20:00.000Z' }, pointsAt: 'prompt' });
    const input = ttft.movedWith.find((m: { metric: string }) => m.metric === 'input-tokens');
    expect(input.change).toBeCloseTo(0.6, 1);
    expect(ttft.explanation).toMatch(/^input tokens per request \+60%: the prompt grew/);
    const text = await runCli(['watch', 'homes.prompty', '--traces', 'prompt.jsonl', '--now', new Date(DEPLOY + 4 * HOUR - 10 * 60_000).toISOString()], repo.root);
    expect(text.stdout).toMatch(/ONGOING ttft\.p99: .* · version b7e1c2d — likely cause: version b7e1c2d, first seen 2026-12-04T14:20:00\.000Z.*; with it, input tokens per request \+60%: the prompt grew/);
  });

  it('slower decoding at the same input: an E2E anomaly pointing at decoding', async () => {
    const { code, json } = await watch('decode.jsonl', DEPLOY + 4 * HOUR - 10 * 60_000);
    expect(code).toBe(1);
    const e2e = json.anomalies.find((a: { metric: string }) => a.metric === 'e2e.p99');
    expect(e2e).toMatchObject({ version: 'b7e1c2d', likelyCause: { version: 'b7e1c2d' }, pointsAt: 'decoding' });
    expect(json.anomalies.some((a: { metric: string }) => a.metric === 'ttft.p99')).toBe(false);
  });

  it('a step change after a deploy, eight days of history, on a Saturday: judged against the hours before the deploy, still ongoing', async () => {
    const { code, json } = await watch('step.jsonl', Date.parse('2026-12-05T20:10:00Z'));
    expect(code).toBe(1);
    const ttft = json.anomalies.find((a: { metric: string; end: string | null }) => a.metric === 'ttft.p99' && a.end === null);
    expect(ttft).toMatchObject({ version: 'b7e1c2d', judgedAgainst: 'pre-change', likelyCause: { version: 'b7e1c2d' } });
  });
});
