/** The usage line of every command (in its usage errors and its --help), apart from the commands' code so that `--help` loads none of it. */
import { version } from '../../../package.json';

export const VERSION = version;
export const COMPARE_USAGE =
  'prompt-insight compare FILE --base REV --head REV [--prompt NAME] [--runs N] [--until-decided [--max-runs N]] --endpoint URL [--model ID] [--provider openai|azure|anthropic|ollama] [--api-key-env VAR] [--judge-endpoint URL --judge-model ID [--accept-judge CHECK]... [--judge-min-lower-bound 0.8] [--judge-min-labels 30]] [--concurrency C] [--timeout-ms T] [--cache cold|warm|as-is] [--scenario interactive|batch|decision] [--slo ttftMs.p90<=1000]... [--policy base|head] [--allow-param NAME]... [--allow-cost-params] [--allow-retrieval ORIGIN]... [--fresh | --reuse-stored] [--max-age-hours H] [--store PATH | --no-store] [--json | --format text|json|markdown] [--out FILE] [--junit FILE] [--report out.html] [--fail-on-regression] [--fetch [--remote NAME]] [--otlp-endpoint URL] [--capacity [--capacity-limit 64] [--capacity-requests N] [--attainment 0.95]]';

export const LOAD_USAGE =
  'prompt-insight load FILE --endpoint URL (--concurrency 1,2,4,8 | --rate 0.5,1,2 [--max-concurrency C] [--arrival constant|poisson|gamma] [--burstiness B] [--seed N] | --sweep N [--limit 64] | --search max-concurrency|max-rate [--limit 64]) [--requests N] [--duration S] [--inputs tests|FILE.jsonl] [--attainment 0.95] [--scenario S] [--slo ttftMs.p90<=1000]... [--prompt NAME] [--model ID] [--provider P] [--api-key-env VAR] [--timeout-ms T] [--cache cold|warm|as-is] [--server-metrics URL | --prometheus URL [--prometheus-selector SELECTOR]] [--store PATH | --no-store] [--allow-param NAME]... [--allow-cost-params] [--allow-retrieval ORIGIN]... [--otlp-endpoint URL] [--report out.html] [--json]';

export const ALERTS_USAGE =
  'prompt-insight alerts FILE --prometheus-rules out.yml [--prompt NAME] [--metric ttft|e2e|ttft,e2e] [--histogram NAME] [--quantile 0.99] [--weeks 4] [--margin 0.2] [--for 2h]';

export const WATCH_USAGE =
  'prompt-insight watch FILE (--traces PATH... | --prometheus URL [--since 35d] [--timeout-ms T]) [--prompt NAME] [--now ISO] [--json]';

export const JUDGE_CHECK_USAGE =
  'prompt-insight judge-check FILE --judge-endpoint URL --judge-model ID [--labels FILE.labels.jsonl] [--min-lower-bound 0.8] [--min-labels 30] [--timeout-ms MS] [--store PATH | --no-store] [--prompt NAME] [--json]';
export const SAMPLE_USAGE =
  'prompt-insight sample FILE --traces PATH... [--n 50] [--strategy random|slowest|errors|stratified] [--since AGE] [--until AGE] [--version V] [--seed N] [--out FILE.tests.yaml] [--redact REGEX]... [--prompt NAME] [--now ISO] [--dry-run] [--json]';

export const EXPORT_USAGE =
  'prompt-insight export [--store PATH] [--kind runs|load|labels] [--labels FILE.labels.jsonl] [--format json|csv|otlp-json] [--out FILE]';

export const PROD_USAGE =
  'prompt-insight prod FILE (--traces PATH... | --prometheus URL [--timeout-ms T]) [--prompt NAME] [--since 24h] [--window 1h|6h|1d] [--report out.html] [--now ISO] [--score 50] [--store PATH | --no-store] [--judge-endpoint URL --judge-model ID] [--decide --base V1 --head V2 [--fail-on-regression] [--policy base|head] [--registry-rev REV] [--accept-judge CHECK]... [--judge-min-lower-bound 0.8] [--judge-min-labels 30]] [--json]';

export const VERSION_USAGE =
  'prompt-insight version FILE [--prompt NAME] [--json]';

export const HISTORY_USAGE =
  'prompt-insight history FILE [--json]';

export const RUN_USAGE =
  'prompt-insight run FILE [--prompt NAME] [--case N|DESCRIPTION] --endpoint URL [--model ID] [--provider openai|azure|anthropic|ollama] [--api-key-env VAR] [--api-version V] [--judge-endpoint URL --judge-model ID] [--runs N] [--concurrency C] [--warmup W] [--rate R] [--timeout-ms T] [--cache cold|warm|as-is] [--server-metrics URL | --prometheus URL [--prometheus-selector SELECTOR]] [--store PATH | --no-store] [--allow-param NAME]... [--allow-cost-params] [--allow-retrieval ORIGIN]... [--otlp-endpoint URL] [--json]';

export const SIM_USAGE =
  'prompt-insight sim [--port P] [--ttft-ms N] [--prefill-ms-per-token X] [--decode-ms-per-token X] [--jitter-ms X] [--tokens-per-chunk N] [--reasoning-tokens N] [--output-tokens N] [--fault none|429|500|reset|stall|malformed|non-streaming] [--fault-rate 0..1] [--seed N] [--scenario FILE] [--slots N] [--prefix-cache-hit-rate 0..1]';

export const TOKENS_USAGE =
  'prompt-insight tokens FILE... [--encoding o200k_base|cl100k_base] [--model ID] [--tokenizer PATH] [--endpoint URL [--api-key-env VAR]] [--budget N] [--json] [--rendered] [--partials DIR]';

/** `--help` or `-h` among a command's arguments (before a `--`, after which everything is a file name). */
export function asksForHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}
