/** `prompt-insight`: the engine as a command line tool for CI and scripts. */
import { UsageError } from './args';
import { processIO, type CliIO } from './io';
import { tokensCommand, TOKENS_USAGE } from './tokensCommand';

const USAGE = `Prompt Insight — prompt token counts (and soon runs, adherence and revision comparison)

usage:
  ${TOKENS_USAGE}

Exit codes: 0 ok · 1 a file could not be read or has errors · 2 usage error`;

const COMMANDS: Record<string, (argv: string[], io: CliIO) => Promise<number>> = {
  tokens: tokensCommand,
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

