/**
 * `--help` cannot drift from the parsers: every command is run in-process with its parser replaced by
 * one that records the flags the command declares and stops it. Each command's help must list exactly
 * those flags, each with a meaning; its examples must parse with the command's own flags; the
 * overview lists every command; and each command's exit codes are its own.
 */
import { describe, expect, it, vi } from 'vitest';

const declared = new Map<string, Set<string>>();
let current = '';
class Stop extends Error {}

vi.mock('../../src/cli/args', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/cli/args')>();
  return {
    ...actual,
    parseArgs: (argv: string[], spec: { valued: string[]; boolean: string[]; repeatable?: string[] }) => {
      if (current) {
        declared.set(current, new Set([...spec.valued, ...spec.boolean, ...(spec.repeatable ?? [])]));
        throw new Stop();
      }
      return actual.parseArgs(argv, spec);
    },
  };
});

const { runCli, COMMANDS } = await import('../../src/cli/cli');
const { parseArgs } = await vi.importActual<typeof import('../../src/cli/args')>('../../src/cli/args');

async function output(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t), interrupted: () => new AbortController().signal } as never);
  return { code, stdout, stderr };
}

async function declaredFlags(command: string): Promise<Set<string>> {
  current = command;
  try {
    await output([command, 'file']);
  } finally {
    current = '';
  }
  return declared.get(command)!;
}

/** The flags a help text's "Flags:" section lists, each with the meaning written beside it. */
function listedFlags(help: string): Map<string, string> {
  const section = help.split('\nFlags:\n')[1]!.split('\n\n')[0]!;
  const flags = new Map<string, string>();
  const lines = section.split('\n');
  lines.forEach((line, i) => {
    const match = /^ {2}--([a-z0-9-]+)(?: \S+)?(?: {2,}(.*))?$/.exec(line);
    if (match) flags.set(match[1]!, (match[2] ?? lines[i + 1] ?? '').trim());
  });
  return flags;
}

const NAMES = Object.keys(COMMANDS);

describe('help that explains every command', () => {
  it('the overview lists every command the CLI runs', async () => {
    const { code, stdout } = await output(['--help']);
    expect(code).toBe(0);
    for (const name of NAMES) expect(stdout, name).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
    expect(stdout).toContain('prompt-insight COMMAND --help');
  });

  it.each(NAMES)('%s --help lists exactly the flags its parser takes, each with a meaning', async (command) => {
    const flags = await declaredFlags(command);
    const { code, stdout } = await output([command, '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^prompt-insight ${command} — \\S`));
    expect(stdout).toContain(`\nusage: prompt-insight ${command}`);
    const listed = listedFlags(stdout);
    expect([...listed.keys()].sort()).toEqual([...flags].sort());
    for (const [flag, meaning] of listed) expect(meaning.length, `--${flag}`).toBeGreaterThan(8);
  });

  it.each(NAMES)('%s --help has examples that its parser accepts, and its own exit codes', async (command) => {
    const flags = await declaredFlags(command);
    const { stdout } = await output([command, '--help']);
    const examples = stdout.split('\nExamples:\n')[1]!.split('\n\n')[0]!.split('\n').map((l) => l.trim());
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const words = example.replace(/^\S+=\S+ /, '').split(/ +/).map((w) => w.replace(/^'(.*)'$/, '$1'));
      const pipe = words.indexOf('|');
      const argv = pipe < 0 ? words : words.slice(0, pipe);
      expect(argv.slice(0, 2)).toEqual(['prompt-insight', command]);
      const all = [...flags];
      const booleans = all.filter((f) => !argv.includes(`--${f}`) || !argv[argv.indexOf(`--${f}`) + 1] || argv[argv.indexOf(`--${f}`) + 1]!.startsWith('--'));
      expect(() => parseArgs(argv.slice(2), { valued: all.filter((f) => !booleans.includes(f)), boolean: booleans }), example).not.toThrow();
    }
    const exit = /\nExit codes: (0 .*)\n/.exec(stdout)![1]!;
    expect(exit).toContain('2 usage error');
    // A footer fits its command: only tokens speaks of --budget, only the two gates (compare, prod --decide) of --fail-on-regression.
    expect(exit.includes('--budget')).toBe(command === 'tokens');
    expect(exit.includes('--fail-on-regression')).toBe(command === 'compare' || command === 'prod');
  });
});
