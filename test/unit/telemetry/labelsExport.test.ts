/**
 * People's labels as OpenTelemetry: `export --kind labels` (the built CLI) turns a labels file into OTLP
 * JSON Lines written by the OpenTelemetry SDK's own serializer — per label an `evaluate CHECK` span with
 * one `gen_ai.evaluation.result` event (name, score label and value, source). The comment and the author
 * go out only with content capture on; a bad line is a warning and is left out.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../fixtures/cli';

const label = (over: Record<string, unknown>) => JSON.stringify({ check: 'single-family only', vars: { city: 'Bellevue' }, answer: '1. Condo', label: 'fail', source: 'HUMAN', author: 'Ada <ada@example.com>', time: '2026-12-07T01:02:03Z', comment: 'lists a condo', ...over });

type Attribute = { key: string; value: { stringValue?: string; intValue?: string; doubleValue?: number } };
const attrs = (list: Attribute[]) => Object.fromEntries(list.map((a) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.doubleValue]));

describe('export --kind labels', () => {
  it('one span a label, each with its gen_ai.evaluation.result event; comments and authors only with content capture', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-labels-export-'));
    writeFileSync(join(dir, 'homes.labels.jsonl'), [label({}), label({ label: 'pass', comment: undefined, time: '2026-12-07T01:05:00Z' }), label({ label: 4.5, source: 'LLM', check: 'tone' }), '{"broken"'].join('\n') + '\n');
    const { code, stdout, stderr } = await runCli(['export', '--kind', 'labels', '--labels', 'homes.labels.jsonl'], dir, { env: { ...process.env, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: '' } });
    expect(code).toBe(0);
    expect(stderr).toMatch(/^warning: homes\.labels\.jsonl:4: not JSON/);
    const spans = stdout.trim().split('\n').map((line) => JSON.parse(line).resourceSpans[0].scopeSpans[0].spans[0]);
    expect(spans.map((s) => s.name)).toEqual(['evaluate single-family only', 'evaluate single-family only', 'evaluate tone']);
    expect(spans[0].startTimeUnixNano).toBe(String(Date.parse('2026-12-07T01:02:03Z') * 1e6));
    const events = spans.map((s) => s.events[0]);
    expect(events.every((e) => e.name === 'gen_ai.evaluation.result')).toBe(true);
    expect(events.map((e) => attrs(e.attributes))).toEqual([
      { 'gen_ai.evaluation.name': 'single-family only', 'gen_ai.evaluation.score.label': 'fail', 'gen_ai.evaluation.score.value': '0', 'prompt_insight.label.source': 'HUMAN' },
      { 'gen_ai.evaluation.name': 'single-family only', 'gen_ai.evaluation.score.label': 'pass', 'gen_ai.evaluation.score.value': '1', 'prompt_insight.label.source': 'HUMAN' },
      { 'gen_ai.evaluation.name': 'tone', 'gen_ai.evaluation.score.label': '4.5', 'gen_ai.evaluation.score.value': 4.5, 'prompt_insight.label.source': 'LLM' },
    ]);
    expect(stdout).not.toContain('ada@example.com');
    expect(stdout).not.toContain('lists a condo');

    const captured = await runCli(['export', '--kind', 'labels', '--labels', 'homes.labels.jsonl'], dir, { env: { ...process.env, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' } });
    const first = JSON.parse(captured.stdout.split('\n')[0]!).resourceSpans[0].scopeSpans[0].spans[0];
    expect(attrs(first.events[0].attributes)['gen_ai.evaluation.explanation']).toBe('lists a condo');
    expect(attrs(first.attributes)['user.name']).toBe('Ada <ada@example.com>');
  });

  it('clear errors: --kind labels without a file, another format, a missing file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-labels-export-'));
    expect((await runCli(['export', '--kind', 'labels'], dir)).stderr).toContain('--kind labels needs --labels FILE.labels.jsonl');
    expect((await runCli(['export', '--labels', 'x.labels.jsonl', '--format', 'csv'], dir)).stderr).toContain('--kind labels exports as otlp-json');
    const missing = await runCli(['export', '--labels', 'none.labels.jsonl'], dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no labels file none.labels.jsonl');
  });
});
