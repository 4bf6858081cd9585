/**
 * Entry point of dist/simulator.js: the simulated endpoint the extension starts for ▶ Run without an
 * endpoint. Only `sim`, so the .vsix carries the simulator rather than the whole command line tool
 * (which `npm pack` ships); arguments as `prompt-insight sim` takes them.
 */
import { UsageError } from './args';
import { dropOutputToClosedPipes, processIO } from './io';
import { terminalText } from './terminalText';
import { simCommand } from './simCommand';

dropOutputToClosedPipes();
const argv = process.argv.slice(2);
simCommand(argv[0] === 'sim' ? argv.slice(1) : argv, processIO).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`prompt-insight sim: ${terminalText((error as Error)?.message ?? String(error))}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  },
);
