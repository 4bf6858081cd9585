// Runs a command with CPU-bound processes beside it (two per core), as on a contributor's laptop that
// is doing other things: `node test/busy/withBusyCores.mjs CMD ARGS...`. Exits with the command's status;
// the busy processes are stopped however the command ends.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node test/busy/withBusyCores.mjs CMD ARGS...');
  process.exit(2);
}
const count = 2 * availableParallelism();
const busy = Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'let x = 0; for (;;) x = (x + 1) % 1e9;'], { stdio: 'ignore' }));
const stopBusy = () => busy.forEach((p) => p.kill('SIGKILL'));
process.on('exit', stopBusy);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));
console.log(`== ${count} CPU-bound processes beside: ${[command, ...args].join(' ')}`);
const child = spawn(command, args, { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
