/** The usage line of every command, apart from the commands' code so that `--help` loads none of it. */
import { version } from '../../package.json';

export const VERSION = version;
export const COMPARE_USAGE =
  'prompt-insight compare FILE --base REV --head REV [--prompt NAME] [--runs N] --endpoint URL [--model ID] [--provider openai|azure|anthropic|ollama] [--api-key-env VAR] [--judge-endpoint URL --judge-model ID] [--concurrency C] [--timeout-ms T] [--cache cold|warm|as-is] [--scenario interactive|batch|decision] [--slo ttftMs.p90<=1000]... [--policy base|head] [--allow-param NAME]... [--allow-cost-params] [--fresh | --reuse-stored] [--max-age-hours H] [--store PATH | --no-store] [--json] [--report out.html] [--fail-on-regression] [--otlp-endpoint URL] [--capacity [--capacity-limit 64] [--capacity-requests N] [--attainment 0.95]]';

export const LOAD_USAGE =
  'prompt-insight load FILE --endpoint URL (--concurrency 1,2,4,8 | --rate 0.5,1,2 [--max-concurrency C] [--arrival constant|poisson|gamma] [--burstiness B] [--seed N] | --sweep N [--limit 64] | --search max-concurrency [--limit 64]) [--requests N] [--duration S] [--inputs tests|FILE.jsonl] [--attainment 0.95] [--scenario S] [--slo ttftMs.p90<=1000]... [--prompt NAME] [--model ID] [--provider P] [--api-key-env VAR] [--timeout-ms T] [--cache cold|warm|as-is] [--server-metrics URL | --prometheus URL [--prometheus-selector SELECTOR]] [--store PATH | --no-store] [--allow-param NAME]... [--allow-cost-params] [--otlp-endpoint URL] [--report out.html] [--json]';

export const ALERTS_USAGE =
  'prompt-insight alerts FILE --prometheus-rules out.yml [--prompt NAME] [--metric ttft|e2e|ttft,e2e] [--histogram NAME] [--quantile 0.99] [--weeks 4] [--margin 0.2] [--for 2h]';

export const WATCH_USAGE =
  'prompt-insight watch FILE (--traces PATH... | --prometheus URL [--since 35d] [--timeout-ms T]) [--prompt NAME] [--now ISO] [--json]';

export const SAMPLE_USAGE =
  'prompt-insight sample FILE --traces PATH... [--n 50] [--strategy random|slowest|errors|stratified] [--seed N] [--out FILE.tests.yaml] [--redact REGEX]... [--prompt NAME] [--dry-run] [--json]';

export const EXPORT_USAGE =
  'prompt-insight export [--store PATH] [--kind runs|load] [--format json|csv|otlp-json] [--out FILE]';

export const PROD_USAGE =
  'prompt-insight prod FILE (--traces PATH... | --prometheus URL [--timeout-ms T]) [--prompt NAME] [--since 24h] [--window 1h|6h|1d] [--report out.html] [--now ISO] [--score 50] [--store PATH | --no-store] [--judge-endpoint URL --judge-model ID] [--decide --base V1 --head V2 [--fail-on-regression]] [--json]';

export const VERSION_USAGE =
  'prompt-insight version FILE [--prompt NAME] [--json]';

export const HISTORY_USAGE =
  'prompt-insight history FILE [--json]';

export const RUN_USAGE =
  'prompt-insight run FILE [--prompt NAME] --endpoint URL [--model ID] [--provider openai|azure|anthropic|ollama] [--api-key-env VAR] [--api-version V] [--judge-endpoint URL --judge-model ID] [--runs N] [--concurrency C] [--warmup W] [--rate R] [--timeout-ms T] [--cache cold|warm|as-is] [--server-metrics URL | --prometheus URL [--prometheus-selector SELECTOR]] [--store PATH | --no-store] [--allow-param NAME]... [--allow-cost-params] [--otlp-endpoint URL] [--json]';

export const SIM_USAGE =
  'prompt-insight sim [--port P] [--ttft-ms N] [--prefill-ms-per-token X] [--decode-ms-per-token X] [--jitter-ms X] [--tokens-per-chunk N] [--reasoning-tokens N] [--output-tokens N] [--fault none|429|500|reset|stall|malformed|non-streaming] [--fault-rate 0..1] [--seed N] [--scenario FILE] [--slots N] [--prefix-cache-hit-rate 0..1]';

export const TOKENS_USAGE =
  'prompt-insight tokens FILE... [--encoding o200k_base|cl100k_base] [--model ID] [--budget N] [--json] [--rendered] [--partials DIR]';

export const PROVIDERS =
  '--provider: openai (default; any OpenAI-compatible server: OpenAI, vLLM, llama.cpp, LM Studio, TGI, Ollama\'s /v1), azure, anthropic, ollama (Ollama\'s native /api/chat, which reports prefill and decode times)';

export const EXIT_CODES =
  'Exit codes: 0 ok (compare --fail-on-regression: ship or no change) · 1 a file could not be read or has errors, a prompt is over --budget (tokens), a run failed, or compare --fail-on-regression decided hold or insufficient evidence · 2 usage error · 130 interrupted';

/** `prompt-insight COMMAND --help`: what the command does, its usage line and what its flags mean where the line cannot say. */
const COMMAND_HELP: Record<string, { summary: string; usage: string; notes?: string[] }> = {
  tokens: {
    summary: 'Token counts of prompt files, as the runtime sends them (templates rendered with their sample values).',
    usage: TOKENS_USAGE,
    notes: [
      '--model ID       count for this model, whatever model the file names',
      '--encoding E     count with this encoding (exact for it)',
      "--budget N       exit 1 when a prompt is over N tokens, whatever the file's own tokenBudget says",
      '--rendered       print each message as it would be sent',
      '--partials DIR   another folder for Dotprompt partials',
      'Tests files (NAME.tests.yaml) and simulator scenarios (NAME.sim.yaml) among the FILEs are skipped, with a note.',
    ],
  },
  run: { summary: 'Runs a prompt against an endpoint N times: TTFT, E2E, TPOT and throughput percentiles, and its test cases.', usage: RUN_USAGE },
  sim: { summary: 'A simulated OpenAI-compatible endpoint on 127.0.0.1, until Ctrl-C.', usage: SIM_USAGE },
  export: { summary: 'The stored runs (the results store) as JSON, CSV or OTLP JSON Lines (OpenTelemetry GenAI spans, docs/telemetry.md); --kind load: the stored load points as JSON or CSV.', usage: EXPORT_USAGE },
  history: { summary: "The prompt file's revisions in git history.", usage: HISTORY_USAGE },
  version: { summary: 'The id to embed at build time as the prompt\'s version in your telemetry (gen_ai.prompt.version): the file\'s last commit when it is committed and unchanged, else its content hash (docs/instrument-your-app.md).', usage: VERSION_USAGE },
  prod: {
    summary: 'What production measured for each version of a prompt (OpenTelemetry GenAI spans or Prometheus): requests, error rate, TTFT/E2E/TPOT percentiles, tokens; the latest version against the previous one (docs/production.md).',
    usage: PROD_USAGE,
    notes: [
      '--traces PATH...  OTLP JSON Lines trace files (one TracesData per line, as the Collector\'s file exporter writes; gzip accepted)',
      '--prometheus URL  a Prometheus server (or Thanos, Mimir, VictoriaMetrics): PromQL over the GenAI client histograms',
      '--since 24h       only spans that ended in the last 30m, 24h, 7d… (or since an ISO date; Prometheus: the PromQL range)',
      '--prompt NAME     one prompt of a file that holds several',
      '--window 1h       also per version and time window (30m, 1h, 6h, 1d; UTC-aligned): requests, error rate, TTFT/E2E/TPOT p50/p90/p99 (JSON versions[].windows[])',
      '--report out.html the Production page the editor draws (versions, hourly chart, version changes) as one offline HTML file',
      '--now ISO         read as of this moment (e.g. 2026-12-05T08:55:00Z): replays what prod said then; spans that ended later are left out',
      '--score 50        answers scored per version with the tests file\'s defaultTest checks (captured output; 0: none); --judge-endpoint/--judge-model for rubrics',
      '--decide --base V1 --head V2  promote / roll back / insufficient under V1\'s policy; --fail-on-regression: exit 1 roll back, 2 insufficient',
    ],
  },
  load: { summary: 'How much load a prompt takes within its SLOs: load levels or a search for the largest concurrency whose SLO attainment reaches the target.', usage: LOAD_USAGE },
  watch: {
    summary: "The prompt's production TTFT, E2E and error rate per hour against their dynamic baselines: anomalies with the version live then; exit 1 while one is ongoing.",
    usage: WATCH_USAGE,
    notes: ['--now ISO         judge as of this moment (e.g. 2026-12-05T08:55:00Z): replays what watch said at an incident\'s hour; later spans are not counted'],
  },
  sample: { summary: 'Production requests with captured input become test cases in the prompt\'s tests file: provenance, deduplicated, secrets and personal data redacted first, appended.', usage: SAMPLE_USAGE },
  alerts: { summary: 'Prometheus recording and alerting rules for the prompt: a dynamic baseline (the same hour over the last weeks) instead of a static threshold.', usage: ALERTS_USAGE },
  compare: { summary: 'Two revisions of a prompt side by side: adherence and latency, whether a difference is real, and the rollout decision (ship, hold, insufficient evidence).', usage: COMPARE_USAGE },
};

export function commandHelp(command: string): string | undefined {
  const help = COMMAND_HELP[command];
  if (!help) return undefined;
  const providers = command === 'run' || command === 'compare' ? [PROVIDERS] : [];
  return [help.summary, '', `usage: ${help.usage}`, ...(help.notes ? ['', ...help.notes] : []), ...(providers.length ? ['', ...providers] : []), '', EXIT_CODES, ''].join('\n');
}

/** `--help` or `-h` among a command's arguments (before a `--`, after which everything is a file name). */
export function asksForHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}
