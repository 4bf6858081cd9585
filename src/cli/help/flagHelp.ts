/** What a command's flags mean, for its `--help`: shared groups here, each command's own in its help entry. */

export interface FlagHelp {
  /** The flag's name without dashes, as the command's parser knows it. */
  name: string;
  /** What follows it (`URL`, `N`); none for a switch. */
  value?: string;
  meaning: string;
}

export interface CommandHelp {
  summary: string;
  usage: string;
  flags: FlagHelp[];
  /** Complete command lines, each runnable as written. */
  examples: string[];
  /** The command's own exit codes, from 0. */
  exitCodes: string;
  notes?: string[];
}

export const PROMPT_FLAG: FlagHelp = { name: 'prompt', value: 'NAME', meaning: 'one prompt of a file that holds several (default: the first)' };
export const JSON_FLAG: FlagHelp = { name: 'json', meaning: 'print JSON instead of text' };

export const ENDPOINT_FLAGS_HELP: FlagHelp[] = [
  { name: 'endpoint', value: 'URL', meaning: "the server's base URL (http://127.0.0.1:8000/v1 for an OpenAI-compatible server; `prompt-insight sim` starts a simulated one)" },
  { name: 'provider', value: 'P', meaning: "openai (default: any OpenAI-compatible server — OpenAI, vLLM, llama.cpp, LM Studio, TGI, Ollama's /v1), azure, anthropic, ollama (Ollama's native /api/chat, which reports prefill and decode times)" },
  { name: 'api-key-env', value: 'VAR', meaning: 'the environment variable holding the API key (never the key itself)' },
  { name: 'api-version', value: 'V', meaning: 'the API version query parameter (Azure OpenAI)' },
  { name: 'model', value: 'ID', meaning: "the model to request; wins over the file's" },
];

export const JUDGE_FLAGS_HELP: FlagHelp[] = [
  { name: 'judge-endpoint', value: 'URL', meaning: 'the judge for llm-rubric assertions and llm evaluators; without one they are undecided and say so' },
  { name: 'judge-model', value: 'ID', meaning: "the judge's model (required with --judge-endpoint)" },
  { name: 'judge-provider', value: 'P', meaning: "the judge's provider, as --provider" },
  { name: 'judge-api-key-env', value: 'VAR', meaning: "the environment variable holding the judge's API key" },
  { name: 'judge-api-version', value: 'V', meaning: "the judge's API version (Azure OpenAI)" },
];

export const RUN_SHAPE_HELP: FlagHelp[] = [
  { name: 'timeout-ms', value: 'T', meaning: 'a run that has not finished after T ms fails with `timeout` (default 60000)' },
  { name: 'cache', value: 'MODE', meaning: "cold (default: the server's prefix cache defeated per request where it allows), warm, or as-is" },
];

export const SERVER_METRICS_HELP: FlagHelp[] = [
  { name: 'server-metrics', value: 'URL', meaning: "a Prometheus text endpoint sampled during the runs (default: the server's own /metrics when its kind is known)" },
  { name: 'prometheus', value: 'URL', meaning: 'read the same server figures from a Prometheus server instead' },
  { name: 'prometheus-selector', value: 'SEL', meaning: "label matchers that pick the server's series in Prometheus, e.g. 'job=\"llama\"'" },
];

export const STORE_FLAGS_HELP: FlagHelp[] = [
  { name: 'store', value: 'PATH', meaning: 'the results store (default .prompt-insight/runs.jsonl, created with a .gitignore that keeps it out of git)' },
  { name: 'no-store', meaning: 'keep nothing' },
];

export const COST_FLAGS_HELP: FlagHelp[] = [
  { name: 'allow-param', value: 'NAME', meaning: 'allow one request parameter that changes cost or retention (n, best_of, service_tier, store, a huge max_tokens…); repeatable. Without it such a file is refused (exit 2, nothing sent)' },
  { name: 'allow-cost-params', meaning: 'allow every such parameter' },
  { name: 'allow-retrieval', value: 'ORIGIN', meaning: 'send the query of a prompt\'s retrieval step to this origin (repeatable; also PROMPT_INSIGHT_ALLOW_RETRIEVAL or "allowRetrieval" in ~/.config/prompt-insight/config.json). Without it a prompt with a retrieval step is refused (exit 2, nothing sent)' },
];

export const OTLP_FLAG_HELP: FlagHelp = { name: 'otlp-endpoint', value: 'URL', meaning: 'also send the runs as OpenTelemetry GenAI spans and metrics (OTLP/HTTP; headers from OTEL_EXPORTER_OTLP_HEADERS)' };

export const SCENARIO_FLAGS_HELP: FlagHelp[] = [
  { name: 'scenario', value: 'S', meaning: "interactive, batch or decision: which metrics gate (overrides the file's)" },
  { name: 'slo', value: 'OBJ', meaning: "add or tighten an SLO, e.g. 'ttftMs.p90<=1000' or 'adherence>=0.9'; repeatable" },
];

export const TRACES_FLAG_HELP: FlagHelp = { name: 'traces', value: 'PATH', meaning: "OTLP JSON Lines trace files (one TracesData per line, as the Collector's file exporter writes; gzip accepted); repeatable" };
