/**
 * The dynamic baseline as Prometheus recording and alerting rules, for teams whose alerts live in
 * Prometheus and Alertmanager. The same method as seasonalBaseline.ts / anomalies.ts, in PromQL:
 *   signal   p99 (or p50) of the GenAI client histogram per prompt, over 5 minutes, then per hour;
 *   weeks    the hourly signal 1…W weeks ago (offset), one series per `weeks_ago`;
 *   baseline their median; mad: the median of their distances from it;
 *   upper    baseline + max(3 × 1.4826 × mad, minimum width × baseline);
 *   alert    the hourly signal above `upper` and by more than the margin over the baseline, with at
 *            least two weeks of history, for two hours (sustained: one bad window never pages).
 * Group "signal" reads the histograms the OpenTelemetry SDK exports; group "baseline" only reads the
 * recorded signal, so it can be tested (and reused) on its own.
 */
import { stringify } from 'yaml';
import { metricNames, prometheusLabel, type SemconvMode } from '../telemetry/genaiConventions';

export type RuleMetric = 'ttft' | 'e2e';

export interface RuleOptions {
  prompt: string;
  metric: RuleMetric;
  quantile?: number;
  weeks?: number;
  /** The alert needs the hour to exceed the baseline by this share as well; default 0.2. */
  margin?: number;
  /** The band is at least this share of the baseline either side; default 0.1. */
  minRelativeWidth?: number;
  /** Sustained for this long before the alert fires; default 2h. */
  for?: string;
  semconv?: SemconvMode;
  /**
   * The histogram's bucket series as Prometheus names it (`--histogram`). Default: any of the names it may have —
   * the SDK exporter's (`…_time_to_first_chunk_bucket`), the Collector's with the unit (`…_seconds_bucket`), the
   * v1.41.1 `operation` and newer `inference` names — matched by a regex, so the rules work whichever is exported.
   */
  histogram?: string;
}

export interface RuleNames {
  signal5m: string;
  signal1h: string;
  weeks: string;
  baseline: string;
  mad: string;
  upper: string;
  alert: string;
}

export function ruleNames(metric: RuleMetric, quantile: number): RuleNames {
  const q = `p${Math.round(quantile * 100)}`;
  const base = `prompt_insight:${metric}_${q}`;
  return {
    signal5m: `${base}:rate5m`,
    signal1h: `${base}:avg1h`,
    weeks: `${base}:weeks_ago`,
    baseline: `${base}:baseline`,
    mad: `${base}:mad`,
    upper: `${base}:upper`,
    alert: metric === 'ttft' ? 'PromptTimeToFirstTokenAboveBaseline' : 'PromptLatencyAboveBaseline',
  };
}

/**
 * A label value as a PromQL string literal, in printable ASCII only: quotes and backslashes escaped,
 * everything else outside ASCII's printable range as a `\u`/`\U` escape (PromQL reads Go's escapes).
 * A prompt name is anyone's text: raw, U+0085, U+2028 or a quote would break the YAML that carries
 * it, and a lone surrogate has no UTF-8 form (it is U+FFFD, as the exporter's UTF-8 encoder sends it).
 */
export function promString(value: string): string {
  return `"${asciiEscaped(value)}"`;
}

function asciiEscaped(value: string): string {
  let out = '';
  for (const char of value) {
    const point = char.codePointAt(0)!;
    const code = point >= 0xd800 && point <= 0xdfff ? 0xfffd : point; // a lone surrogate
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (code >= 0x20 && code <= 0x7e) out += char;
    else out += code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return out;
}

export function prometheusRules(options: RuleOptions): { groups: object[] } {
  const quantile = options.quantile ?? 0.99;
  const weeks = options.weeks ?? 4;
  const margin = options.margin ?? 0.2;
  const minWidth = options.minRelativeWidth ?? 0.1;
  const names = ruleNames(options.metric, quantile);
  const metrics = metricNames(options.semconv ?? 'v1.41.1');
  const promptLabel = prometheusLabel('gen_ai.prompt.name');
  const selector = `{${promptLabel}=${promString(options.prompt)}}`;
  const family = (options.metric === 'ttft' ? metrics.timeToFirstChunk : metrics.duration).replace(/^gen_ai\.client\.(operation|inference)\./, '').replace(/\./g, '_');
  const bucketSelector = options.histogram
    ? `${options.histogram}${selector}`
    : `{__name__=~"gen_ai_client_(operation|inference)_${family}(_seconds)?_bucket", ${promptLabel}=${promString(options.prompt)}}`;
  const byPrompt = `${promptLabel}`;
  const weeksExpr = Array.from({ length: weeks }, (_, i) => `label_replace(${names.signal1h}${selector} offset ${i + 1}w, "weeks_ago", "${i + 1}", "", "")`).join('\n  or ');
  const what = options.metric === 'ttft' ? 'time to first token' : 'end-to-end latency';
  return {
    groups: [
      {
        // Unique per prompt, metric and quantile: the TTFT and E2E rules of one prompt go in one file without colliding.
        name: `prompt-insight-signal-${asciiEscaped(options.prompt)}-${options.metric}-p${Math.round(quantile * 100)}`,
        rules: [
          { record: names.signal5m, expr: `histogram_quantile(${quantile}, sum by (le, ${byPrompt}) (rate(${bucketSelector}[5m])))` },
          { record: names.signal1h, expr: `avg_over_time(${names.signal5m}${selector}[1h])` },
        ],
      },
      {
        name: `prompt-insight-baseline-${asciiEscaped(options.prompt)}-${options.metric}-p${Math.round(quantile * 100)}`,
        rules: [
          { record: names.weeks, expr: weeksExpr },
          { record: names.baseline, expr: `quantile without (weeks_ago) (0.5, ${names.weeks}${selector})` },
          { record: names.mad, expr: `quantile without (weeks_ago) (0.5, abs(${names.weeks}${selector} - ignoring (weeks_ago) group_left ${names.baseline}${selector}))` },
          {
            record: names.upper,
            expr: `${names.baseline}${selector} + ((${3 * 1.4826} * ${names.mad}${selector} >= ${minWidth} * ${names.baseline}${selector}) or (${minWidth} * ${names.baseline}${selector}))`,
          },
          {
            alert: names.alert,
            expr: [
              `${names.signal1h}${selector} > ${names.upper}${selector}`,
              `and ${names.signal1h}${selector} > ${1 + margin} * ${names.baseline}${selector}`,
              `and count without (weeks_ago) (${names.weeks}${selector}) >= 2`,
            ].join('\n'),
            for: options.for ?? '2h',
            labels: { severity: 'warning', metric: options.metric },
            annotations: {
              summary: `Prompt {{ $labels.${promptLabel} }}: ${what} p${Math.round(quantile * 100)} above its usual level for this hour of the week`,
              description: `The hourly ${what} p${Math.round(quantile * 100)} is {{ $value | humanizeDuration }}, above the band of the same hour over the last ${weeks} weeks (median + 3 MADs, at least ${Math.round(minWidth * 100)}%) and more than ${Math.round(margin * 100)}% over its median, for ${options.for ?? '2h'}.`,
            },
          },
        ],
      },
    ],
  };
}

/** One file of rules for one or more metrics of a prompt (their groups are named apart). */
export function prometheusRulesYaml(options: RuleOptions | readonly RuleOptions[]): string {
  const all = Array.isArray(options) ? options : [options as RuleOptions];
  const groups = all.flatMap((o) => prometheusRules(o).groups);
  return `# Prometheus rules written by prompt-insight alerts: a dynamic baseline for prompt ${promString(all[0]!.prompt)}.\n# Check with: promtool check rules FILE. Route the alert with Alertmanager (labels: severity, metric).\n${stringify({ groups }, { lineWidth: 0 })}`;
}
