/**
 * The dynamic baseline as Prometheus rules, checked by Prometheus's own tooling: `promtool check
 * rules` on what `prompt-insight alerts` writes, and `promtool test rules` (Prometheus's rule unit
 * tests) on five weeks of a generated hourly TTFT p99 with a daily peak, a weekend dip, a spike and
 * a night-time step regression: the alert fires on the regression and stays silent on the peak and
 * the spike. The signal rule is checked against a histogram whose p99 is known.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { prometheusRules } from '../../src/core/baseline/promRules';
import { seededRandom } from '../../src/core/stats/random';

const run = promisify(execFile);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 9, 5); // a Monday; promtool's time 0

/** Hourly TTFT p99 in seconds: 0.8 s at night, 1.4 s at the weekday peak, 20% lower at weekends, ±3% noise. */
function hourly(weeks: number, shape: (hoursFromStart: number, value: number) => number): number[] {
  const random = seededRandom(20261204);
  return Array.from({ length: weeks * 7 * 24 + 1 }, (_, i) => {
    const t = T0 + i * HOUR;
    const hour = new Date(t).getUTCHours();
    const weekday = (new Date(t).getUTCDay() + 6) % 7;
    const daytime = hour >= 8 && hour <= 20 ? 0.6 * Math.sin((Math.PI * (hour - 8)) / 12) : 0;
    const value = (0.8 + daytime) * (weekday >= 5 ? 0.8 : 1) * (1 + (random() - 0.5) * 0.06);
    return Math.round(shape(i, value) * 10_000) / 10_000;
  });
}

const STEP = 4 * 7 * 24 + 24 + 2; // week 5, Tuesday 02:00 (hours from the start)
const SPIKE = 3 * 7 * 24 + 2 * 24 + 3; // week 4, Wednesday 03:00

describe('prompt-insight alerts: rules checked and unit-tested by promtool', () => {
  it('the CLI writes rules promtool accepts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-rules-'));
    writeFileSync(join(dir, 'homes.prompty'), readFileSync('examples/homes/homes.prompty'));
    await run(process.execPath, [resolve('dist/cli.js'), 'alerts', 'homes.prompty', '--prometheus-rules', 'rules.yml'], { cwd: dir });
    const { stdout } = await run('promtool', ['check', 'rules', join(dir, 'rules.yml')]);
    expect(stdout).toContain('SUCCESS: 7 rules found');
    expect(readFileSync(join(dir, 'rules.yml'), 'utf8')).toContain('gen_ai_prompt_name="homes-assistant"');
  });

  it('prompt names Prometheus YAML cannot carry raw (U+0085, U+2028, a lone surrogate, quotes, a line break) are escaped: promtool loads the rules and the selector names the prompt exactly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-rules-'));
    // YAML escapes in the front matter: NEL, line separator, a lone surrogate, a quote, a backslash, a newline, an astral character.
    writeFileSync(join(dir, 'odd.prompty'), '---\nname: "homes\\N\\Lx\\ud800\\"q\\\\b\\nline 🏠"\nmodel:\n  api: chat\n---\nuser:\nFind homes.\n');
    const cli = await run(process.execPath, [resolve(process.env.PROMPT_INSIGHT_TEST_DIST ?? 'dist', 'cli.js'), 'alerts', 'odd.prompty', '--prometheus-rules', 'rules.yml'], { cwd: dir });
    expect(cli.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
    const { stdout } = await run('promtool', ['check', 'rules', join(dir, 'rules.yml')]);
    expect(stdout).toContain('SUCCESS: 7 rules found');
    const text = readFileSync(join(dir, 'rules.yml'), 'utf8');
    expect(text).toMatch(/^[\x09\x0a\x20-\x7e]*$/); // printable ASCII only
    // What the selector's literal says, decoded as PromQL (Go) decodes escapes: the prompt's name, a lone surrogate as U+FFFD.
    const expr = (parse(text) as { groups: { rules: { expr?: string }[] }[] }).groups[0]!.rules[0]!.expr!;
    const literal = /gen_ai_prompt_name="((?:[^"\\]|\\.)*)"/.exec(expr)![1]!;
    const decoded = literal.replace(/\\(U[0-9a-f]{8}|u[0-9a-f]{4}|["\\])/g, (_, e: string) => (e.length === 1 ? e : String.fromCodePoint(parseInt(e.slice(1), 16))));
    expect(decoded).toBe('homes\u0085\u2028x\ufffd"q\\b\nline 🏠');
  });

  it('fires on a night-time regression, stays silent on the daily peak and on a single spike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-promtest-'));
    const rules = prometheusRules({ prompt: 'homes', metric: 'ttft' });
    // The baseline group alone reads the recorded hourly signal, given here as the input series.
    writeFileSync(join(dir, 'baseline.yml'), stringify({ groups: [rules.groups[1]] }, { lineWidth: 0 }));
    const values = hourly(5, (i, v) => (i === SPIKE ? v * 3 : i >= STEP && new Date(T0 + i * HOUR).getUTCHours() < 7 ? v * 1.5 : v));
    const alert = 'PromptTimeToFirstTokenAboveBaseline';
    const labels = { severity: 'warning', metric: 'ttft', gen_ai_prompt_name: 'homes' };
    const at = (hours: number) => `${hours}h`;
    // The annotations as Prometheus fills them in: the firing hour's value, humanized (4 significant digits).
    const [, baselineGroup] = rules.groups as { rules: { alert?: string; annotations?: Record<string, string> }[] }[];
    const annotations = baselineGroup!.rules.find((r) => r.alert === alert)!.annotations!;
    const firing = Number(values[STEP + 3]!.toPrecision(4));
    const expAnnotations = { summary: annotations.summary!.replace('{{ $labels.gen_ai_prompt_name }}', 'homes'), description: annotations.description!.replace('{{ $value | humanizeDuration }}', `${firing}s`) };
    const tests = {
      rule_files: ['baseline.yml'],
      evaluation_interval: '1h',
      tests: [
        {
          interval: '1h',
          input_series: [{ series: 'prompt_insight:ttft_p99:avg1h{gen_ai_prompt_name="homes"}', values: values.join(' ') }],
          alert_rule_test: [
            // Three hours into the regression (pending for 2h, then firing).
            { eval_time: at(STEP + 3), alertname: alert, exp_alerts: [{ exp_labels: labels, exp_annotations: expAnnotations }] },
            // The weekday peak of week 5 (Monday 14:00, before the regression): normal for that hour.
            { eval_time: at(4 * 7 * 24 + 14), alertname: alert, exp_alerts: [] },
            // Two hours after the spike: it lasted one window, so it never fired.
            { eval_time: at(SPIKE + 2), alertname: alert, exp_alerts: [] },
            // Week 1–2: too little history for the weekly baseline, whatever the values.
            { eval_time: at(7 * 24 + 14), alertname: alert, exp_alerts: [] },
          ],
        },
      ],
    };
    writeFileSync(join(dir, 'tests.yml'), stringify(tests, { lineWidth: 0 }));
    const result = await run('promtool', ['test', 'rules', join(dir, 'tests.yml')]).catch((error: { stdout: string; stderr: string }) => error);
    expect(`${result.stdout}${result.stderr}`).toContain('SUCCESS');
  }, 120_000);

  it.each([
    ['the SDK exporter names it', 'gen_ai_client_operation_time_to_first_chunk_bucket'],
    ["the Collector's exporter names it, unit appended", 'gen_ai_client_operation_time_to_first_chunk_seconds_bucket'],
    ['the newer conventions name it', 'gen_ai_client_inference_time_to_first_chunk_seconds_bucket'],
  ])('the signal rule: p99 from the GenAI client histogram, per prompt, however %s', async (_how, name) => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-promsignal-'));
    const rules = prometheusRules({ prompt: 'homes', metric: 'ttft' });
    writeFileSync(join(dir, 'signal.yml'), stringify({ groups: [rules.groups[0]] }, { lineWidth: 0 }));
    const bucket = (le: string, values: string) => ({ series: `${name}{le="${le}",gen_ai_prompt_name="homes"}`, values });
    // Ten requests a minute, every one between 0.16 s and 0.32 s: p99 = 0.16 + 0.99 × 0.16 by linear interpolation.
    const tests = {
      rule_files: ['signal.yml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [bucket('0.16', '0x15'), bucket('0.32', '0+10x15'), bucket('+Inf', '0+10x15')],
          promql_expr_test: [{ expr: 'prompt_insight:ttft_p99:rate5m', eval_time: '10m', exp_samples: [{ labels: 'prompt_insight:ttft_p99:rate5m{gen_ai_prompt_name="homes"}', value: 0.3184 }] }],
        },
      ],
    };
    writeFileSync(join(dir, 'tests.yml'), stringify(tests, { lineWidth: 0 }));
    const result = await run('promtool', ['test', 'rules', join(dir, 'tests.yml')]).catch((error: { stdout: string; stderr: string }) => error);
    expect(`${result.stdout}${result.stderr}`).toContain('SUCCESS');
  });

  it('alerts --metric ttft,e2e writes both into one file whose rule groups are named apart (promtool checks it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-promboth-'));
    writeFileSync(join(dir, 'homes.prompty'), readFileSync(resolve('examples/homes/homes.prompty')));
    await run(process.execPath, [resolve('dist/cli.js'), 'alerts', 'homes.prompty', '--metric', 'ttft,e2e', '--prometheus-rules', 'both.yml'], { cwd: dir });
    const { stdout } = await run('promtool', ['check', 'rules', join(dir, 'both.yml')]);
    expect(stdout).toMatch(/SUCCESS: 14 rules found/);
  });
});
