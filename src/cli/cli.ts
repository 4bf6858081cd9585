/** `prompt-insight`: the engine as a command line tool for CI and scripts. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { STORE_FOLDER } from '../core/store/storeFile';
import { UsageError } from './args';
import { processIO, type CliIO } from './io';
import { terminalSafeIO } from './terminalText';
import { commandHelpText, overviewHelp } from './help/helpText';
import { asksForHelp, VERSION } from './help/usage';

type Command = (argv: string[], io: CliIO) => Promise<number>;

/**
 * Each command's code is loaded when that command runs (esbuild turns these imports into lazy
 * module starts), so `tokens` in CI does not start the HTTP, git, store and statistics code.
 */
export const COMMANDS: Record<string, () => Promise<Command>> = {
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
  'judge-check': async () => (await import('./judgeCheckCommand')).judgeCheckCommand,
  prod: async () => (await import('./prodCommand')).prodCommand,
  version: async () => (await import('./versionCommand')).versionCommand,
};

export async function runCli(argv: string[], rawIO: CliIO = processIO): Promise<number> {
  // Model names, file names, endpoint errors and production labels are anyone's text: every command's
  // output goes through one sanitizer here, so the terminal shows them and never obeys them.
  const io = terminalSafeIO(rawIO);
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(overviewHelp());
    return command ? 0 : 2;
  }
  if (command === '--version' || command === '-V') {
    io.stdout(`prompt-insight ${VERSION}\n`);
    return 0;
  }
  const load = COMMANDS[command];
  if (load && asksForHelp(rest)) {
    io.stdout(commandHelpText(command) ?? overviewHelp());
    return 0;
  }
  if (!load) {
    io.stderr(`prompt-insight: unknown command '${command}'\n\n${overviewHelp()}`);
    return 2;
  }
  const storeFolderExisted = existsSync(STORE_FOLDER);
  try {
    return await (await load())(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`prompt-insight ${command}: ${error.message}\n`);
      return 2;
    }
    io.stderr(`prompt-insight ${command}: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  } finally {
    if (!storeFolderExisted && existsSync(join(STORE_FOLDER, '.gitignore'))) io.stderr(`prompt-insight: created ${STORE_FOLDER}/ for the results store, with a .gitignore inside that keeps it out of git\n`);
  }
}

