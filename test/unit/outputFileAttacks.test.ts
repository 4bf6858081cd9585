/**
 * Issue 38, point 1: files the tools write because a flag or GitHub's job summary names them. A pull
 * request commits links where docs/ci.md's command writes (`prompt-gate.junit.xml` →
 * `../outside/junit.txt`, `prompt-gate.html` → `../outside/report.txt`, a `reports` folder →
 * `../outside`); CI runs the command in the checkout. Every writing command refuses, naming the file,
 * before any request is sent, and the outside files stay as they were. The built CLI as a child
 * process, the simulator on loopback, a real one-commit checkout.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendOutputFile, FileWriteError, writeOutputFile } from '../../src/core/files/fileWrite';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim, type RunningSim } from '../../src/core/sim/simServer';
import { runCli } from '../fixtures/cli';
import { HOMES_WITH_RULE, HOMES_WITHOUT_RULE } from '../fixtures/homesRepo';
import { shallowCheckout } from '../fixtures/shallowCheckout';

const PRECIOUS = 'precious: written by someone else\n';
let sim: RunningSim;
let clone: string;
let baseSha: string;
let outside: string;
const made: string[] = [];

beforeAll(async () => {
  sim = await startSim({ ttftBaseMs: 5, decodeMsPerToken: 0.1, jitterMs: 0, scenario: parseScenario(readFileSync('examples/homes/homes.sim.yaml', 'utf8')) });
  const tests = readFileSync('examples/homes/homes.tests.yaml', 'utf8');
  ({ clone, baseSha } = shallowCheckout({ base: { 'homes.prompty': HOMES_WITHOUT_RULE, 'homes.tests.yaml': tests }, head: { 'homes.prompty': HOMES_WITH_RULE } }));
  made.push(dirname(clone));
  outside = join(dirname(clone), 'outside');
  mkdirSync(outside);
  for (const name of ['junit.txt', 'report.txt', 'summary.txt', 'rules.txt', 'export.txt', 'capacity.txt', 'production.txt', 'markdown.txt']) writeFileSync(join(outside, name), PRECIOUS);
  // What the pull request commits: links at the names the CI command writes, and a linked folder.
  const links: [string, string][] = [
    ['prompt-gate.junit.xml', '../outside/junit.txt'],
    ['prompt-gate.html', '../outside/report.txt'],
    ['prompt-gate.md', '../outside/markdown.txt'],
    ['summary.md', '../outside/summary.txt'],
    ['rules.yml', '../outside/rules.txt'],
    ['runs.csv', '../outside/export.txt'],
    ['capacity.html', '../outside/capacity.txt'],
    ['production.html', '../outside/production.txt'],
    ['reports', '../outside'],
  ];
  for (const [name, target] of links) symlinkSync(target, join(clone, name));
  execFileSync('git', ['add', ...links.map(([name]) => name)], { cwd: clone });
  execFileSync('git', ['-c', 'user.name=PR', '-c', 'user.email=pr@example.com', 'commit', '-q', '-m', 'reports'], { cwd: clone });
});

afterAll(async () => {
  await sim.close();
  for (const folder of made) rmSync(folder, { recursive: true, force: true });
});

function outsideUntouched(): void {
  for (const name of readdirSync(outside)) expect(readFileSync(join(outside, name), 'utf8'), name).toBe(PRECIOUS);
  expect(readdirSync(outside).sort()).toEqual(['capacity.txt', 'export.txt', 'junit.txt', 'markdown.txt', 'production.txt', 'report.txt', 'rules.txt', 'summary.txt']);
}

describe('a committed link where a command writes its output', () => {
  it('compare --junit/--report as docs/ci.md runs it: refused before any run, naming the link; the outside files stay whole', async () => {
    const served = sim.served();
    const args = ['compare', 'homes.prompty', '--base', baseSha, '--head', 'HEAD', '--runs', '2', '--endpoint', sim.url, '--no-store', '--fetch'];
    const junit = await runCli([...args, '--junit', 'prompt-gate.junit.xml', '--report', 'prompt-gate.html'], clone);
    expect(junit.code).toBe(1);
    expect(junit.stderr).toContain(`prompt-insight compare: 'prompt-gate.junit.xml' is a link (to ${realpathSync(outside)}/junit.txt); Prompt Insight never writes the JUnit report (--junit) through a link.`);
    const report = await runCli([...args, '--report', 'prompt-gate.html'], clone);
    expect(report.code).toBe(1);
    expect(report.stderr).toContain("'prompt-gate.html' is a link");
    const markdown = await runCli([...args, '--format', 'markdown', '--out', 'prompt-gate.md'], clone);
    expect(markdown.code).toBe(1);
    expect(markdown.stderr).toContain("'prompt-gate.md' is a link");
    const folder = await runCli([...args, '--report', 'reports/prompt-gate.html'], clone);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain("'reports/prompt-gate.html' lies under reports, which is a link");
    const summary = await runCli(args, clone, { env: { ...process.env, GITHUB_STEP_SUMMARY: join(clone, 'summary.md') } });
    expect(summary.code).toBe(1);
    expect(summary.stderr).toContain('is a link');
    expect(summary.stderr).toContain('the job summary ($GITHUB_STEP_SUMMARY)');
    expect(sim.served()).toBe(served);
    outsideUntouched();
    expect(existsSync(join(outside, 'prompt-gate.html'))).toBe(false);
  });

  it('load --report, prod --report, alerts --prometheus-rules and export --out: each refused, naming the file', async () => {
    const served = sim.served();
    const cases: [string[], string][] = [
      [['load', 'homes.prompty', '--endpoint', sim.url, '--concurrency', '1', '--requests', '2', '--report', 'capacity.html'], "'capacity.html' is a link"],
      [['prod', 'homes.prompty', '--traces', 'none.jsonl', '--report', 'production.html'], "'production.html' is a link"],
      [['alerts', 'homes.prompty', '--prometheus-rules', 'rules.yml'], "'rules.yml' is a link"],
      [['export', '--format', 'csv', '--out', 'runs.csv', '--store', join(clone, 'no-store.jsonl')], "'runs.csv' is a link"],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, clone);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toContain(message);
    }
    expect(sim.served()).toBe(served);
    outsideUntouched();
  });

  it('a report outside the checkout (the runner temp folder docs/ci.md uses) is written; an existing regular file is replaced whole', async () => {
    const runnerTemp = realpathSync(mkdtempSync(join(tmpdir(), 'pi-runner-temp-')));
    made.push(runnerTemp);
    const rules = join(runnerTemp, 'homes.rules.yml');
    writeFileSync(rules, 'old rules\n');
    chmodSync(rules, 0o640);
    const result = await runCli(['alerts', 'homes.prompty', '--prometheus-rules', rules], clone);
    expect(result.code).toBe(0);
    expect(readFileSync(rules, 'utf8')).toMatch(/^groups:/m);
    expect(statSync(rules).mode & 0o777).toBe(0o640);
    expect(readdirSync(runnerTemp)).toEqual(['homes.rules.yml']);
  });
});

describe('the one write module', () => {
  it('refuses a FIFO, a folder and anything inside .git without blocking; appends to a regular file', () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'pi-write-')));
    made.push(folder);
    execFileSync('mkfifo', [join(folder, 'pipe')]);
    mkdirSync(join(folder, 'dir'));
    mkdirSync(join(folder, '.git'));
    const refused = (file: string, append = false): FileWriteError => {
      try {
        if (append) appendOutputFile(join(folder, file), 'x', { what: 'the test output', cwd: folder });
        else writeOutputFile(join(folder, file), 'x', { what: 'the test output', cwd: folder });
      } catch (error) {
        return error as FileWriteError;
      }
      throw new Error(`${file} was written`);
    };
    expect(refused('pipe').kind).toBe('not-regular');
    expect(refused('pipe', true).kind).toBe('not-regular');
    expect(refused('dir').kind).toBe('not-regular');
    expect(refused('.git/hooks-post-checkout').kind).toBe('git-internal');
    expect(refused('missing/out.txt').kind).toBe('no-folder');
    appendOutputFile(join(folder, 'summary.md'), 'one\n', { what: 'the summary', cwd: folder });
    appendOutputFile(join(folder, 'summary.md'), 'two\n', { what: 'the summary', cwd: folder });
    expect(readFileSync(join(folder, 'summary.md'), 'utf8')).toBe('one\ntwo\n');
    // No temporary file is left beside a written target.
    writeOutputFile(join(folder, 'out.txt'), 'text', { what: 'the test output', cwd: folder });
    expect(readdirSync(folder).sort()).toEqual(['.git', 'dir', 'out.txt', 'pipe', 'summary.md']);
  });
});
