/**
 * The README is the installed extension's details page and a new user's first stop; docs/ holds the
 * depth. These tests keep both honest as the code moves: a short README, links and images that
 * resolve to files in the repository (and headings that exist), no path out of the repository, the
 * two set-up commands real scripts that CI runs, and names (settings, commands, CLI flags) that exist.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = process.cwd();
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const README = read('README.md');
const DOCS = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
const PAGES = ['README.md', ...DOCS];
const pkg = JSON.parse(read('package.json')) as {
  scripts: Record<string, string>;
  contributes: { commands: { command: string; title: string }[]; configuration: { properties: Record<string, unknown> } | { properties: Record<string, unknown> }[] };
};

/** Files git tracks (in a clone: the committed ones), so a link to a file left out of a commit fails here, not on GitHub. */
const TRACKED = new Set(execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean));

/** Markdown with fenced code blocks and inline code blanked out (same line numbers), so examples are not read as links. */
function prose(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '))
    .replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
}

/** Fenced code blocks' contents. */
function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
}

interface Link { target: string; image: boolean; line: number }

function linksOf(markdown: string): Link[] {
  const text = prose(markdown);
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  const links: Link[] = [];
  for (const m of text.matchAll(/(!?)\[(?:[^\]\[]|!\[[^\]]*\]\([^)]*\))*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ target: m[2]!, image: m[1] === '!', line: lineAt(m.index!) });
    // An image inside a link's text: [![alt](img)](target)
    for (const inner of m[0].slice(1).matchAll(/!\[[^\]]*\]\(\s*([^)\s]+)\s*\)/g)) links.push({ target: inner[1]!, image: true, line: lineAt(m.index!) });
  }
  for (const m of text.matchAll(/<img\b[^>]*\bsrc=["']([^"']+)["']/gi)) links.push({ target: m[1]!, image: true, line: lineAt(m.index!) });
  return links;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = m[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
    const slug = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

describe('README', () => {
  it('is short: at most 300 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('gives the two set-up commands, each a real package.json script, and CI runs the test one', () => {
    const setUp = codeBlocks(README).join('\n');
    expect(setUp).toMatch(/^npm ci && npm run demo\b/m);
    expect(setUp).toMatch(/^npm ci && npm test\b/m);
    expect(pkg.scripts.demo).toBeTruthy();
    expect(pkg.scripts.test).toBeTruthy();
    const ci = read('.ci/run');
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).toMatch(/^npm test\b|\bnpm test \|\|/m);
  });

  it('the set-up scripts call only scripts and files that exist', () => {
    const missing: string[] = [];
    const visit = (name: string, seen: Set<string>) => {
      if (seen.has(name)) return;
      seen.add(name);
      const script = pkg.scripts[name];
      if (script === undefined) return void missing.push(`npm run ${name}: no such script`);
      for (const m of script.matchAll(/\bnpm run ([\w:-]+)/g)) visit(m[1]!, seen);
      if (/\bnpm test\b/.test(script)) visit('test', seen);
      for (const m of script.matchAll(/(?:^|\s)((?:[\w.-]+\/)+[\w.-]+\.(?:ts|mjs|js|sh))\b/g)) if (!existsSync(join(ROOT, m[1]!))) missing.push(`${name}: ${m[1]} does not exist`);
    };
    visit('demo', new Set());
    visit('test', new Set());
    expect(missing).toEqual([]);
  });

  it('shows screenshots that are committed PNG/JPEG/GIF files in media/ or docs/images/, linked relatively', () => {
    const images = linksOf(README).filter((l) => l.image);
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) {
      expect(isExternal(image.target), `README.md:${image.line}: ${image.target}`).toBe(false);
      expect(image.target, `README.md:${image.line}`).toMatch(/^(media|docs\/images)\/[\w.-]+\.(png|jpe?g|gif)$/);
      expect(TRACKED.has(image.target), `README.md:${image.line}: ${image.target} is not in the repository`).toBe(true);
    }
  });

  it('links users to no test files', () => {
    const intoTests = linksOf(README).filter((l) => !isExternal(l.target) && /^(\.\/)?test\//.test(l.target));
    expect(intoTests).toEqual([]);
  });
});

describe('README and docs/', () => {
  it('every relative link and image resolves to a file in the repository, and every #anchor to a heading', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const link of linksOf(read(page))) {
        if (isExternal(link.target)) continue;
        const [pathPart, anchor] = link.target.split('#', 2) as [string, string | undefined];
        const target = pathPart === '' ? page : posix.normalize(posix.join(dirname(page), decodeURI(pathPart)));
        const where = `${page}:${link.line}: ${link.target}`;
        if (target.startsWith('..') || normalize(target).startsWith('..')) broken.push(`${where} leaves the repository`);
        else if (!TRACKED.has(target) && ![...TRACKED].some((f) => f.startsWith(`${target.replace(/\/$/, '')}/`))) broken.push(`${where} is not in the repository`);
        else if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(read(target)).has(anchor)) broken.push(`${where}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name no test files outside docs/development.md, where contributors look', () => {
    // Users read what is tested, not where: "Tested in test/unit/…" is noise to them.
    const found: string[] = [];
    for (const page of PAGES.filter((p) => p !== 'docs/development.md')) {
      read(page).split('\n').forEach((line, i) => {
        for (const m of line.matchAll(/(?<![\w/.-])test\/[\w./-]+|[\w-]+\.(?:e2e\.|engine\.)?test\.ts\b|\btested in\b/gi)) found.push(`${page}:${i + 1}: "${m[0]}"`);
      });
    }
    expect(found).toEqual([]);
  });

  it('never point outside the repository (../shared) and use no internal words', () => {
    // Users have neither the project's working notes nor its issue tracker: "as in MISSION.md", "issue 4".
    const found: string[] = [];
    for (const page of PAGES) {
      read(page).split('\n').forEach((line, i) => {
        for (const m of line.matchAll(/\.\.\/shared|MISSION\.md|ARCHITECTURE\.md|\bissues? \d+|\bdesign card\b/gi)) found.push(`${page}:${i + 1}: "${m[0]}"`);
      });
    }
    expect(found).toEqual([]);
  });

  it('name only settings and commands the extension contributes', () => {
    const configurations = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
    const settings = new Set(configurations.flatMap((c) => Object.keys(c.properties)));
    const commandIds = new Set(pkg.contributes.commands.map((c) => c.command));
    const titles = pkg.contributes.commands.map((c) => c.title);
    const unknown: string[] = [];
    for (const page of PAGES) {
      const text = read(page);
      for (const m of text.matchAll(/\bpromptInsight\.[A-Za-z]+(?:\.[A-Za-z]+)?/g)) if (!settings.has(m[0]) && !commandIds.has(m[0])) unknown.push(`${page}: ${m[0]}`);
      for (const m of text.matchAll(/Prompt Insight: ([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*)/g)) if (!titles.some((t) => t.startsWith(m[1]!))) unknown.push(`${page}: "Prompt Insight: ${m[1]}"`);
    }
    expect(unknown).toEqual([]);
  });

  it('name only npm scripts that exist', () => {
    const missing: string[] = [];
    for (const page of PAGES) for (const m of read(page).matchAll(/\bnpm run ([\w:-]+)/g)) if (!(m[1]! in pkg.scripts)) missing.push(`${page}: npm run ${m[1]}`);
    expect(missing).toEqual([]);
  });

  it("the README's settings table gives each setting's real default", () => {
    const configurations = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
    const defaults = new Map(configurations.flatMap((c) => Object.entries(c.properties).map(([k, v]) => [k, (v as { default?: unknown }).default] as const)));
    const wrong: string[] = [];
    let rows = 0;
    for (const line of README.split('\n')) {
      const cells = line.split('|').map((c) => c.trim());
      if (cells.length < 4 || !/^`promptInsight\./.test(cells[1]!)) continue;
      rows++;
      const names = [...cells[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      const prefix = names[0]!.slice(0, names[0]!.lastIndexOf('.'));
      const keys = names.map((n) => (n.startsWith('.') ? prefix + n : n));
      const shown = [...cells[2]!.matchAll(/`([^`]*)`/g)].map((m) => m[1]!);
      keys.forEach((key, i) => {
        const actual = defaults.get(key);
        const said = shown.length === 1 ? shown[0] : shown[i]; // one value for `a` / `.b` means both
        const ok = said === JSON.stringify(actual) || (typeof actual === 'string' && actual !== '' && said === actual);
        if (!ok) wrong.push(`${key}: README says ${said}, package.json ${JSON.stringify(actual)}`);
      });
    }
    expect(rows).toBeGreaterThan(5);
    expect(wrong).toEqual([]);
  });

  it('CLI examples use only flags their command accepts', () => {
    const usage = read('src/cli/help/usage.ts');
    const usageOf = (command: string) => usage.match(new RegExp(`'prompt-insight ${command} [^']*'`))?.[0];
    const unknown: string[] = [];
    for (const page of PAGES) {
      for (const block of codeBlocks(read(page))) {
        for (const line of block.replace(/\\\n/g, ' ').split('\n')) {
          const m = line.match(/^\s*(?:node dist\/cli\.js|prompt-insight) ([a-z][a-z-]*)\b(.*)$/);
          if (!m) continue;
          const synopsis = usageOf(m[1]!);
          if (!synopsis) { unknown.push(`${page}: no command '${m[1]}'`); continue; }
          for (const flag of m[2]!.matchAll(/(?:^|\s|\[)(--[a-z][a-z-]*)/g)) if (!synopsis.includes(`${flag[1]}`)) unknown.push(`${page}: ${m[1]} ${flag[1]}`);
        }
      }
    }
    expect(unknown).toEqual([]);
  });
});
