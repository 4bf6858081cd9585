/**
 * `prompt-insight alerts FILE --prometheus-rules out.yml`: the dynamic baseline of the prompt's
 * latency as Prometheus recording and alerting rules (core/baseline/promRules.ts), named after the
 * prompt as its telemetry names it (`gen_ai.prompt.name`). Check them with `promtool check rules`.
 */
import { prometheusRulesYaml, type RuleMetric } from '../core/baseline/promRules';
import { numberFlag, parseArgs, stringFlag, UsageError } from './args';
import type { CliIO } from './io';
import { promptsOf } from '../core/formats/promptFile';
import { ALERTS_USAGE } from './help/usage';
import { writeOutput } from './outputFiles';

const METRICS: readonly RuleMetric[] = ['ttft', 'e2e'];

export async function alertsCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valued: ['prometheus-rules', 'prompt', 'metric', 'quantile', 'weeks', 'margin', 'for', 'histogram'], boolean: [] });
  if (args.positionals.length !== 1) throw new UsageError(`give exactly one prompt file\nusage: ${ALERTS_USAGE}`);
  const out = stringFlag(args, 'prometheus-rules');
  if (!out) throw new UsageError(`--prometheus-rules FILE is required\nusage: ${ALERTS_USAGE}`);
  // `--metric ttft,e2e`: both in one file (their rule groups are named apart).
  const metrics = (stringFlag(args, 'metric') ?? 'ttft').split(',').map((m) => m.trim());
  if (metrics.some((m) => !(METRICS as readonly string[]).includes(m))) throw new UsageError(`--metric must be one of ${METRICS.join(', ')}, or both: ttft,e2e`);
  const histogram = stringFlag(args, 'histogram');
  if (histogram !== undefined && (metrics.length > 1 || !/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(histogram))) throw new UsageError('--histogram takes one metric name (e.g. gen_ai_client_operation_time_to_first_chunk_seconds_bucket), with one --metric');
  const metric = metrics.join(',');
  const quantile = numberFlag(args, 'quantile', { min: 0.5, max: 0.999 }, 0.99);
  const weeks = numberFlag(args, 'weeks', { min: 2, max: 12, integer: true }, 4);
  const margin = numberFlag(args, 'margin', { min: 0, max: 10 }, 0.2);
  const sustained = stringFlag(args, 'for') ?? '2h';
  if (!/^\d+[smhd]$/.test(sustained)) throw new UsageError(`--for takes a Prometheus duration such as 2h or 30m (got '${sustained}')`);
  const file = args.positionals[0]!;
  const found = await promptsOf(file, stringFlag(args, 'prompt'));
  if ('error' in found) {
    io.stderr(`prompt-insight alerts: ${found.error}\n`);
    return 1;
  }
  const prompt = found.prompts[0]!;
  writeOutput({ path: out, what: 'the rules file (--prometheus-rules)' }, prometheusRulesYaml([...new Set(metrics)].map((m) => ({ prompt: prompt.name, metric: m as RuleMetric, quantile, weeks, margin, for: sustained, ...(histogram ? { histogram } : {}) }))));
  io.stderr(`Rules for prompt '${prompt.name}' (${metric} p${Math.round(quantile * 100)}, baseline of the same hour over ${weeks} weeks) written to ${out}. Check: promtool check rules ${out}\n`);
  return 0;
}
