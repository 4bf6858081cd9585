// The test files a busy machine can break: those that measure or wait on real time. CI runs every test
// once on quiet cores and these once more beside CPU-bound processes (withBusyCores.mjs); running
// pure logic (parsers, statistics, renderers) twice proves nothing the first pass did not.
//   node test/busy/timingSensitive.mjs --list    prints the files and why each is in
//   node test/busy/timingSensitive.mjs ARGS...   runs vitest on them (ARGS passed on)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

// Whole folders whose subject is time: the language server (answer order, debounce, deadlines while
// another request runs), endpoint streams (timeouts, stalls, connection reuse), load generation and
// the simulator (schedules in milliseconds).
const TIMED_FOLDERS = ['test/server/', 'test/unit/endpoint/', 'test/unit/load/', 'test/unit/sim/'];

// Elsewhere, a file is in when it drives the simulator (whose latencies are wall-clock) or a deadline.
const TIMED_SOURCE = [
  { pattern: /\bstartSim\b/, why: 'measures the simulator’s latencies' },
  { pattern: /TOKENIZER_DEADLINE|deadline|new Worker\(/, why: 'work under a deadline' },
  { pattern: /timeout-ms|timeoutMs|\bstall\b/, why: 'request timeouts' },
];

function testFiles(folder) {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/'));
}

export function timingSensitiveFiles() {
  const chosen = [];
  for (const file of [...testFiles('test/unit'), ...testFiles('test/server')].sort()) {
    const folder = TIMED_FOLDERS.find((prefix) => file.startsWith(prefix));
    if (folder) {
      chosen.push({ file, why: `in ${folder}` });
      continue;
    }
    const source = readFileSync(join(ROOT, file), 'utf8');
    const hit = TIMED_SOURCE.find((rule) => rule.pattern.test(source));
    if (hit) chosen.push({ file, why: hit.why });
  }
  return chosen;
}

if (process.argv[1] === import.meta.filename) {
  const chosen = timingSensitiveFiles();
  if (process.argv[2] === '--list') {
    for (const { file, why } of chosen) console.log(`${file}  (${why})`);
    process.exit(0);
  }
  console.log(`== ${chosen.length} timing-sensitive test files (node test/busy/timingSensitive.mjs --list says which and why)`);
  const child = spawn('npx', ['vitest', 'run', ...process.argv.slice(2), ...chosen.map((c) => c.file)], { stdio: 'inherit', cwd: ROOT });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
