/**
 * `prompt-insight --help` and `prompt-insight COMMAND --help`: every command with what it does;
 * each command's usage, every flag its parser takes with what it means, examples, and its own exit
 * codes. Loads no command's code (the tables live beside, in measureHelp.ts and productionHelp.ts).
 */
import { VERSION } from './usage';
import type { CommandHelp, FlagHelp } from './flagHelp';
import { MEASURE_HELP } from './measureHelp';
import { PRODUCTION_HELP } from './productionHelp';

const HELP: Record<string, CommandHelp> = { ...MEASURE_HELP, ...PRODUCTION_HELP };

/** The commands in the order the overview lists them, with one line each. */
const OVERVIEW: [string, string][] = [
  ['tokens', 'token counts of prompt files, as the runtime sends them; --budget gates CI'],
  ['run', 'run a prompt N times: TTFT, E2E, TPOT, throughput percentiles, its test cases'],
  ['compare', 'two git revisions side by side, with statistics and the rollout decision (the CI gate)'],
  ['load', 'capacity within the SLOs: load levels, sweeps, the largest concurrency that holds'],
  ['prod', "production's figures per prompt version (OpenTelemetry traces or Prometheus)"],
  ['watch', 'production against its dynamic baseline: anomalies, exit 1 while one is ongoing'],
  ['alerts', 'Prometheus rules with a dynamic baseline for the prompt'],
  ['sample', 'production requests into test cases, redacted'],
  ['judge-check', "a trust card for each judged check: the judge against people's labels"],
  ['version', "the id to tag the prompt's production telemetry with (commit or content hash)"],
  ['history', "the prompt file's revisions in git"],
  ['export', 'the stored runs as JSON, CSV or OTLP JSON Lines'],
  ['sim', 'a simulated OpenAI-compatible endpoint for demos, tests and rehearsals'],
];

export function helpedCommands(): string[] {
  return OVERVIEW.map(([name]) => name);
}

export function overviewHelp(): string {
  const width = Math.max(...OVERVIEW.map(([name]) => name.length)) + 2;
  return [
    `Prompt Insight ${VERSION} — token counts, measured runs (TTFT, E2E, throughput), revision comparison, capacity and production figures of prompt files`,
    '',
    'usage: prompt-insight COMMAND [FILE] [flags]',
    '',
    'Commands:',
    ...OVERVIEW.map(([name, line]) => `  ${name.padEnd(width)}${line}`),
    '',
    'prompt-insight COMMAND --help   what a command does, every flag it takes, examples, its exit codes',
    'prompt-insight --version',
    '',
    'API keys come from an environment variable named with --api-key-env, never from a flag.',
    'Exit codes: 0 ok · 1 the command failed or its gate did not pass (COMMAND --help says which) · 2 usage error · 130 interrupted',
    '',
  ].join('\n');
}

export function commandHelpText(command: string): string | undefined {
  const help = HELP[command];
  if (!help) return undefined;
  const flags = help.flags.map(flagLine);
  const width = Math.min(30, Math.max(...flags.map(([left]) => left.length)) + 2);
  return [
    `prompt-insight ${command} — ${help.summary}`,
    '',
    `usage: ${help.usage}`,
    '',
    'Flags:',
    ...flags.map(([left, meaning]) => (left.length < width ? `  ${left.padEnd(width)}${meaning}` : `  ${left}\n  ${''.padEnd(width)}${meaning}`)),
    ...(help.notes ? ['', ...help.notes] : []),
    '',
    'Examples:',
    ...help.examples.map((example) => `  ${example}`),
    '',
    `Exit codes: ${help.exitCodes}`,
    '',
  ].join('\n');
}

function flagLine(flag: FlagHelp): [string, string] {
  return [`--${flag.name}${flag.value ? ` ${flag.value}` : ''}`, flag.meaning];
}
