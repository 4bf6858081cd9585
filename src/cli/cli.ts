/** `prompt-insight`: the engine as a command line tool for CI and scripts. */
import { UsageError } from './args';
import { processIO, type CliIO } from './io';
import { asksForHelp, commandHelp, COMPARE_USAGE, EXIT_CODES, EXPORT_USAGE, HISTORY_USAGE, LOAD_USAGE, ALERTS_USAGE, WATCH_USAGE, PROD_USAGE, PROVIDERS, RUN_USAGE, SIM_USAGE, TOKENS_USAGE, VERSION, VERSION_USAGE } from './usage';

const USAGE = `Prompt Insight — token counts, measured runs (TTFT, E2E, throughput), revision comparison and a simulated endpoint

usage:
  ${TOKENS_USAGE}
  ${RUN_USAGE}
  ${SIM_USAGE}
  ${EXPORT_USAGE}
  ${HISTORY_USAGE}
  ${COMPARE_USAGE}
  ${LOAD_USAGE}
  ${ALERTS_USAGE}
  ${WATCH_USAGE}
  ${PROD_USAGE}
  ${VERSION_USAGE}
  prompt-insight COMMAND --help · prompt-insight --version

${PROVIDERS}
API keys come from an environment variable named with --api-key-env, never from a flag.
${EXIT_CODES}`;

type Command = (argv: string[], io: CliIO) => Promise<number>;

/**
 * Each command's code is loaded when that command runs (esbuild turns these imports into lazy
 * module starts), so `tokens` in CI does not start the HTTP, git, store and statistics code.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  tokens: async () => (await import('./tokensCommand')).tokensCommand,
  run: async () => (await import('./runCommand')).runCommand,
  sim: async () => (await import('./simCommand')).simCommand,
  export: async () => (await import('./exportCommand')).exportCommand,
  history: async () => (await import('./historyCommand')).historyCommand,
  compare: async () => (await import('./compareCommand')).compareCommand,
  load: async () => (await import('./loadCommand')).loadCommand,
  alerts: async () => (await import('./alertsCommand')).alertsCommand,
  watch: async () => (await import('./watchCommand')).watchCommand,
  sample: async () => (await import('./sampleCommand')).sampleCommand,
  prod: async () => (await import('./prodCommand')).prodCommand,
  version: async () => (await import('./versionCommand')).versionCommand,
};

export async function runCli(argv: string[], io: CliIO = processIO): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  if (command === '--version' || command === '-V') {
    io.stdout(`prompt-insight ${VERSION}\n`);
    return 0;
  }
  const load = COMMANDS[command];
  if (load && asksForHelp(rest)) {
    io.stdout(commandHelp(command) ?? `${USAGE}\n`);
    return 0;
  }
  if (!load) {
    io.stderr(`prompt-insight: unknown command '${command}'\n\n${USAGE}\n`);
    return 2;
  }
  try {
    return await (await load())(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`prompt-insight ${command}: ${error.message}\n`);
      return 2;
    }
    io.stderr(`prompt-insight ${command}: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  }
}

