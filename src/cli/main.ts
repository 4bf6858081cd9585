/** Entry point of the `prompt-insight` binary. */
import { runCli } from './cli';
import { dropOutputToClosedPipes } from './io';
import { terminalText } from './terminalText';

dropOutputToClosedPipes();
runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`prompt-insight: ${terminalText(String(error))}\n`);
    process.exitCode = 1;
  },
);
