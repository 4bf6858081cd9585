/** `prompt-insight`: the engine as a command line tool for CI and scripts. */
import { UsageError } from './args';
import { processIO, type CliIO } from './io';
import { compareCommand, COMPARE_USAGE } from './compareCommand';
import { exportCommand, EXPORT_USAGE } from './exportCommand';
import { historyCommand, HISTORY_USAGE } from './historyCommand';
import { runCommand, RUN_USAGE } from './runCommand';
import { simCommand, SIM_USAGE } from './simCommand';
import { tokensCommand, TOKENS_USAGE } from './tokensCommand';

const USAGE = `Prompt Insight — token counts, measured runs (TTFT, E2E, throughput), revision comparison and a simulated endpoint

usage:
  ${TOKENS_USAGE}
  ${RUN_USAGE}
  ${SIM_USAGE}
  ${EXPORT_USAGE}
  ${HISTORY_USAGE}
  ${COMPARE_USAGE}

API keys come from an environment variable named with --api-key-env, never from a flag.
Exit codes: 0 ok · 1 a file could not be read, has errors, a run failed, or (compare --fail-on-regression) a significant worsening · 2 usage error · 130 interrupted`;

const COMMANDS: Record<string, (argv: string[], io: CliIO) => Promise<number>> = {
  tokens: tokensCommand,
  run: runCommand,
  sim: simCommand,
  export: exportCommand,
  history: historyCommand,
  compare: compareCommand,
};

export async function runCli(argv: string[], io: CliIO = processIO): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  const handler = COMMANDS[command];
  if (!handler) {
    io.stderr(`prompt-insight: unknown command '${command}'\n\n${USAGE}\n`);
    return 2;
  }
  try {
    return await handler(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`prompt-insight ${command}: ${error.message}\n`);
      return 2;
    }
    io.stderr(`prompt-insight ${command}: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  }
}

