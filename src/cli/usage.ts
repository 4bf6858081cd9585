/** The usage line of every command, apart from the commands' code so that `--help` loads none of it. */
export const COMPARE_USAGE =
  'prompt-insight compare FILE --base REV --head REV [--prompt NAME] [--runs N] --endpoint URL [--model ID] [--provider P] [--api-key-env VAR] [--judge-endpoint URL --judge-model ID] [--concurrency C] [--timeout-ms T] [--cache cold|warm|as-is] [--scenario interactive|batch|decision] [--slo ttftMs.p90<=1000]... [--policy base|head] [--allow-param NAME]... [--allow-cost-params] [--fresh | --reuse-stored] [--max-age-hours H] [--store PATH | --no-store] [--json] [--report out.html] [--fail-on-regression]';

export const EXPORT_USAGE =
  'prompt-insight export [--store PATH] [--format json|csv] [--out FILE]';

export const HISTORY_USAGE =
  'prompt-insight history FILE [--json]';

export const RUN_USAGE =
  'prompt-insight run FILE [--prompt NAME] --endpoint URL [--model ID] [--provider openai|azure|anthropic] [--api-key-env VAR] [--api-version V] [--judge-endpoint URL --judge-model ID] [--runs N] [--concurrency C] [--warmup W] [--rate R] [--timeout-ms T] [--cache cold|warm|as-is] [--server-metrics URL | --prometheus URL [--prometheus-selector SELECTOR]] [--store PATH | --no-store] [--allow-param NAME]... [--allow-cost-params] [--json]';

export const SIM_USAGE =
  'prompt-insight sim [--port P] [--ttft-ms N] [--prefill-ms-per-token X] [--decode-ms-per-token X] [--jitter-ms X] [--tokens-per-chunk N] [--reasoning-tokens N] [--output-tokens N] [--fault none|429|500|reset|stall|malformed|non-streaming] [--fault-rate 0..1] [--seed N] [--scenario FILE] [--slots N]';

export const TOKENS_USAGE =
  'prompt-insight tokens FILE... [--encoding o200k_base|cl100k_base] [--model ID] [--budget N] [--json] [--rendered] [--partials DIR]';
