/** `--help` of the commands that read production and stored data: prod, watch, alerts, sample, history, export. */
import { ALERTS_USAGE, EXPORT_USAGE, HISTORY_USAGE, PROD_USAGE, SAMPLE_USAGE, VERSION_USAGE, WATCH_USAGE } from './usage';
import { JSON_FLAG, JUDGE_FLAGS_HELP, PROMPT_FLAG, STORE_FLAGS_HELP, TRACES_FLAG_HELP, type CommandHelp } from './flagHelp';

const PROMETHEUS_SOURCE = { name: 'prometheus', value: 'URL', meaning: 'a Prometheus server (or Thanos, Mimir, VictoriaMetrics): PromQL over the GenAI client histograms' };
const NOW = { name: 'now', value: 'ISO', meaning: 'read as of this moment (e.g. 2026-12-05T08:55:00Z): replays what was said then; spans that ended later are left out' };
const TIMEOUT = { name: 'timeout-ms', value: 'T', meaning: 'give up on a Prometheus query after T ms' };

export const PRODUCTION_HELP: Record<string, CommandHelp> = {
  prod: {
    summary: 'What production measured for each version of a prompt (OpenTelemetry GenAI spans or Prometheus): requests, error rate, TTFT/E2E/TPOT percentiles, tokens; the latest version against the previous one.',
    usage: PROD_USAGE,
    flags: [
      TRACES_FLAG_HELP, PROMETHEUS_SOURCE, TIMEOUT, PROMPT_FLAG,
      { name: 'since', value: 'AGE', meaning: 'only spans that ended in the last 30m, 24h, 7d… or since an ISO date (Prometheus: the PromQL range)' },
      { name: 'window', value: 'W', meaning: 'also per version and time window (30m, 1h, 6h, 1d; UTC-aligned)' },
      { name: 'report', value: 'out.html', meaning: "the editor's Production page (versions, hourly chart, version changes) as one offline HTML file" },
      NOW,
      { name: 'score', value: 'N', meaning: "score up to N captured answers per version with the tests file's defaultTest checks (0: none); with a judge, hallucination and faithfulness against the passages the trace's retriever spans carry; stored beside the run store" },
      ...STORE_FLAGS_HELP,
      ...JUDGE_FLAGS_HELP,
      { name: 'decide', meaning: "the gray-release decision between --base and --head under the base's policy: promote, roll back or insufficient evidence" },
      { name: 'base', value: 'V1', meaning: 'the version serving before (with --decide)' },
      { name: 'head', value: 'V2', meaning: 'the version being rolled out (with --decide)' },
      { name: 'fail-on-regression', meaning: 'with --decide: exit 1 on roll back, 2 on insufficient evidence' },
      { name: 'policy', value: 'base|head', meaning: "with --decide: whose checks and SLOs judge (default base; head applies the change's own, listed)" },
      { name: 'registry-rev', value: 'REV', meaning: 'with --decide: the revision the version table (NAME.versions.yaml) is read at, never the working copy (default: the upstream branch, else origin/HEAD)' },
      { name: 'accept-judge', value: 'CHECK', meaning: "with --decide: promote on this judged check's judge although people's labels (the base's side's) do not show it trusted (repeatable; said in the reasons)" },
      { name: 'judge-min-lower-bound', value: 'X', meaning: "with --decide: a judge is trusted when both 95% lower bounds (TPR, TNR) against people's labels are at least X (default 0.8)" },
      { name: 'judge-min-labels', value: 'N', meaning: 'with --decide: and people labelled at least N passes and N fails of its check (default 30)' },
      JSON_FLAG,
    ],
    examples: ['prompt-insight prod homes.prompty --traces traces.jsonl.gz --since 24h --window 1h', 'prompt-insight prod homes.prompty --prometheus http://127.0.0.1:9090 --json', 'prompt-insight prod homes.prompty --traces traces.jsonl.gz --score 50 --decide --base v1 --head v2 --registry-rev origin/main --fail-on-regression'],
    exitCodes: '0 ok (with --decide: promote) · 1 the file or a source could not be read, or --fail-on-regression and roll back · 2 usage error, or --fail-on-regression and insufficient evidence · 130 interrupted',
  },
  watch: {
    summary: "The prompt's production TTFT, E2E and error rate per hour against their dynamic baselines (the same hour of past weeks): anomalies, with the version live then.",
    usage: WATCH_USAGE,
    flags: [TRACES_FLAG_HELP, PROMETHEUS_SOURCE, { name: 'since', value: 'AGE', meaning: 'how much Prometheus history the baselines read (default 35d)' }, TIMEOUT, PROMPT_FLAG, NOW, JSON_FLAG],
    examples: ['prompt-insight watch homes.prompty --traces traces.jsonl.gz', 'prompt-insight watch homes.prompty --prometheus http://127.0.0.1:9090 --since 35d --json'],
    exitCodes: '0 no anomaly ongoing · 1 an anomaly is ongoing, or a source could not be read · 2 usage error · 130 interrupted',
  },
  alerts: {
    summary: 'Prometheus recording and alerting rules for the prompt: a dynamic baseline (the same hour over the last weeks) instead of a static threshold.',
    usage: ALERTS_USAGE,
    flags: [
      { name: 'prometheus-rules', value: 'out.yml', meaning: 'where the rule file is written (check it with promtool check rules)' },
      PROMPT_FLAG,
      { name: 'metric', value: 'M', meaning: 'ttft, e2e, or ttft,e2e (one rule group each)' },
      { name: 'histogram', value: 'NAME', meaning: "the histogram's bucket series as your exporter names it (e.g. gen_ai_client_operation_time_to_first_chunk_seconds_bucket), with one --metric" },
      { name: 'quantile', value: 'Q', meaning: 'the quantile watched (default 0.99)' },
      { name: 'weeks', value: 'N', meaning: 'how many past weeks make the baseline (default 4)' },
      { name: 'margin', value: 'X', meaning: 'how far above the baseline fires, as a share (default 0.2)' },
      { name: 'for', value: 'D', meaning: 'how long it must stay above before the alert fires (default 2h)' },
    ],
    examples: ['prompt-insight alerts homes.prompty --prometheus-rules prompt-alerts.yml --metric ttft --quantile 0.99'],
    exitCodes: '0 the rules were written · 1 the file could not be read or the rules not written · 2 usage error',
  },
  sample: {
    summary: "Production requests with captured input become test cases in the prompt's tests file: provenance, deduplicated, secrets and personal data redacted first, appended.",
    usage: SAMPLE_USAGE,
    flags: [
      TRACES_FLAG_HELP,
      { name: 'n', value: 'N', meaning: 'how many requests to sample (default 50)' },
      { name: 'strategy', value: 'S', meaning: 'random (default); slowest (of the calls that answered); errors (failed calls: timeouts, 429s, 5xx, empty answers); stratified (an equal share per version)' },
      { name: 'since', value: 'AGE', meaning: 'only calls that ended in the last 30m, 24h, 7d… or since an ISO date' },
      { name: 'until', value: 'AGE', meaning: 'only calls that ended before then: a duration before now (2d) or an ISO date' },
      { name: 'version', value: 'V', meaning: "only calls of this prompt version: a commit, a label of NAME.versions.yaml or a content hash, as prod names them" },
      { name: 'seed', value: 'N', meaning: 'seed of the random choice (default 1)' },
      { name: 'out', value: 'FILE', meaning: "the tests file appended to (default: the prompt's NAME.tests.yaml)" },
      { name: 'redact', value: 'REGEX', meaning: 'also redact text matching this pattern; repeatable' },
      PROMPT_FLAG,
      NOW,
      { name: 'dry-run', meaning: 'print what would be appended, write nothing' },
      JSON_FLAG,
    ],
    examples: ['prompt-insight sample homes.prompty --traces traces.jsonl.gz --n 20 --strategy slowest --dry-run', 'prompt-insight sample homes.prompty --traces traces.jsonl.gz --version 3 --since 3d --until 1d --strategy slowest --n 10'],
    exitCodes: '0 ok · 1 the file, traces or tests file could not be read or written · 2 usage error · 130 interrupted',
  },
  version: {
    summary: "The id to embed at build time as the prompt's version in your telemetry (gen_ai.prompt.version): the file's last commit when it is committed and unchanged, else each prompt's content hash.",
    usage: VERSION_USAGE,
    flags: [PROMPT_FLAG, JSON_FLAG],
    examples: ['prompt-insight version examples/homes/homes.prompty --json'],
    exitCodes: '0 ok · 1 the file could not be read or a prompt has no version · 2 usage error',
  },
  history: {
    summary: "The prompt file's revisions in git history (renames followed), with the path it had at each.",
    usage: HISTORY_USAGE,
    flags: [JSON_FLAG],
    examples: ['prompt-insight history examples/homes/homes.prompty --json'],
    exitCodes: '0 ok · 1 not a git repository, the file is untracked, or git failed · 2 usage error',
  },
  export: {
    summary: 'The stored runs (the results store) as JSON, CSV or OTLP JSON Lines (OpenTelemetry GenAI spans); --kind load: the stored load points as JSON or CSV; --kind labels: a labels file as OTLP JSON Lines (gen_ai.evaluation.result events).',
    usage: EXPORT_USAGE,
    flags: [
      { name: 'store', value: 'PATH', meaning: 'the results store (default .prompt-insight/runs.jsonl)' },
      { name: 'kind', value: 'K', meaning: 'runs (default), load (the load points beside the store) or labels (people\'s labels, with --labels)' },
      { name: 'labels', value: 'FILE', meaning: 'the labels file (NAME.labels.jsonl) --kind labels exports; comments and authors only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true' },
      { name: 'format', value: 'F', meaning: 'json (default), csv, or otlp-json (runs only)' },
      { name: 'out', value: 'FILE', meaning: 'write to FILE instead of stdout' },
    ],
    examples: ['prompt-insight export --format csv --out runs.csv', 'prompt-insight export --format otlp-json | gzip > runs.otlp.jsonl.gz'],
    exitCodes: '0 ok (an empty store prints [] and says so) · 1 the store could not be read or the output not written · 2 usage error',
  },
};
