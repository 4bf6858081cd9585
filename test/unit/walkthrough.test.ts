/**
 * The Get Started walkthrough (package.json contributes.walkthroughs): every button and completion event
 * names a command the extension registers, and every page it shows is a small Markdown file the .vsix ships.
 */
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_COMMANDS } from '../../src/protocol/commands';

interface Step { id: string; title: string; description: string; media: { markdown?: string; image?: string }; completionEvents?: string[] }
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { contributes: { commands: { command: string }[]; walkthroughs: { id: string; title: string; steps: Step[] }[] } };
const main = readFileSync('src/extension/main.ts', 'utf8');
/** Registered at activation: literal ids and the CLIENT_COMMANDS the lenses invoke. */
const registered = new Set([
  ...[...main.matchAll(/registerCommand\('([\w.]+)'/g)].map((m) => m[1]!),
  ...[...main.matchAll(/registerCommand\(CLIENT_COMMANDS\.(\w+)/g)].map((m) => CLIENT_COMMANDS[m[1] as keyof typeof CLIENT_COMMANDS]),
]);
const shipped = readFileSync('.vscodeignore', 'utf8').split('\n').filter((l) => l.startsWith('!')).map((l) => l.slice(1));
const allowed = (file: string): boolean => shipped.some((pattern) => pattern === file || (pattern.endsWith('/*.md') && file.startsWith(pattern.slice(0, -4)) && file.endsWith('.md') && !file.slice(pattern.length - 4).includes('/')));

describe('the walkthrough', () => {
  const [walkthrough] = pkg.contributes.walkthroughs;
  it('has the six steps, from an endpoint to production', () => {
    expect(walkthrough!.steps.map((s) => s.id)).toEqual(['addEndpoint', 'runPrompt', 'addTest', 'compareRevisions', 'reviewAnswers', 'seeProduction']);
  });

  it('each step has a button, and its buttons and completion events name registered commands', () => {
    for (const step of walkthrough!.steps) {
      const buttons = [...step.description.matchAll(/\]\(command:([\w.]+)/g)].map((m) => m[1]!);
      expect(buttons.length, step.id).toBeGreaterThan(0);
      for (const id of buttons) if (id.startsWith('promptInsight.')) expect(registered, `${step.id}: ${id}`).toContain(id);
      for (const event of step.completionEvents ?? []) expect(registered, `${step.id}: ${event}`).toContain(event.replace(/^onCommand:/, ''));
    }
    // The palette commands it names are contributed (the lens-only runTestCase needs no title).
    for (const id of ['promptInsight.addEndpoint', 'promptInsight.openTestsFile']) expect(pkg.contributes.commands.map((c) => c.command)).toContain(id);
  });

  it('shows small Markdown pages that exist and are packaged', () => {
    for (const step of walkthrough!.steps) {
      const page = step.media.markdown!;
      expect(page, step.id).toMatch(/^media\/walkthrough\/[\w-]+\.md$/);
      expect(statSync(page).size).toBeLessThan(2_000);
      expect(allowed(page), `${page} is not in the .vscodeignore allowlist`).toBe(true);
    }
  });
});
