/**
 * Secrets, found by gitleaks' own rule set: its configuration file, kept here as upstream ships it
 * (gitleaks/gitleaks.toml, MIT licence beside it), read the way gitleaks reads it — a rule runs only
 * when one of its keywords is in the text; the secret is the rule's `secretGroup` (else its first
 * non-empty group, else the match); a finding whose Shannon entropy is not above the rule's bound,
 * or that an allowlist (the rule's or the global one: regexes on the secret, the match or the line;
 * stopwords) lets through, is not one. Rules that apply only to file paths are left out (a
 * production input has none). The patterns are RE2 (Go's syntax), run on re2js: linear in the text,
 * whatever it holds. Each rule compiles on first use.
 */
import { RE2JS } from 're2js';
import config from './gitleaks/gitleaks.toml';
import licence from './gitleaks/LICENSE?raw';

/** Which rule set, for what `sample` prints; its licence travels with it. */
export const SECRET_RULES_SOURCE = { name: 'gitleaks', version: 'v8.30.0-27-gb58d3f10', licence } as const;

export interface Finding {
  start: number;
  end: number;
  kind: string;
}

interface RawAllowlist {
  regexes?: string[];
  stopwords?: string[];
  regexTarget?: 'match' | 'line';
  condition?: 'AND' | 'OR';
  paths?: string[];
}
interface RawRule {
  id: string;
  regex?: string;
  secretGroup?: number;
  entropy?: number;
  keywords?: string[];
  path?: string;
  allowlists?: RawAllowlist[];
}
interface RawConfig {
  allowlist: RawAllowlist;
  rules: RawRule[];
}

interface Allowlist {
  regexes: RE2JS[];
  stopwords: string[];
  target: 'secret' | 'match' | 'line';
  and: boolean;
  /** AND with a path condition can never hold without a path. */
  needsPath: boolean;
}

interface SecretRule {
  id: string;
  keywords: string[];
  compiled?: { program: RE2JS; secretGroup: number; entropy: number; allowlists: Allowlist[] };
}

const raw = config as RawConfig;
let rules: SecretRule[] | undefined;
let globalAllowlist: Allowlist | undefined;

function allowlistOf(a: RawAllowlist): Allowlist {
  return { regexes: (a.regexes ?? []).map((r) => RE2JS.compile(r)), stopwords: (a.stopwords ?? []).map((w) => w.toLowerCase()), target: a.regexTarget ?? 'secret', and: a.condition === 'AND', needsPath: a.condition === 'AND' && (a.paths?.length ?? 0) > 0 };
}

function secretRules(): SecretRule[] {
  rules ??= raw.rules.filter((r) => r.regex !== undefined && r.path === undefined).map((r) => ({ id: r.id, keywords: (r.keywords ?? []).map((k) => k.toLowerCase()) }));
  return rules;
}

function compiled(rule: SecretRule): NonNullable<SecretRule['compiled']> {
  if (!rule.compiled) {
    const source = raw.rules.find((r) => r.id === rule.id)!;
    rule.compiled = { program: RE2JS.compile(source.regex!), secretGroup: source.secretGroup ?? 0, entropy: source.entropy ?? 0, allowlists: (source.allowlists ?? []).map(allowlistOf) };
  }
  return rule.compiled;
}

/** The findings of every rule in `text` (ranges of the secrets), in rule order; overlaps are the caller's to settle. */
export function findSecrets(text: string): Finding[] {
  const lower = text.toLowerCase();
  const findings: Finding[] = [];
  globalAllowlist ??= allowlistOf(raw.allowlist);
  for (const rule of secretRules()) {
    if (rule.keywords.length > 0 && !rule.keywords.some((k) => lower.includes(k))) continue;
    const { program, secretGroup, entropy, allowlists } = compiled(rule);
    const matcher = program.matcher(text);
    while (matcher.find()) {
      const found = secretRange(matcher, secretGroup);
      if (!found || found.end <= found.start) continue;
      const secret = text.slice(found.start, found.end);
      if (entropy > 0 && shannonEntropy(secret) <= entropy) continue;
      const match = text.slice(matcher.start(), matcher.end());
      const line = lineAround(text, matcher.start(), matcher.end());
      if ([globalAllowlist, ...allowlists].some((a) => allowed(a, secret, match, line))) continue;
      findings.push({ ...found, kind: rule.id });
    }
  }
  return findings;
}

type Matcher = ReturnType<RE2JS['matcher']>;

function secretRange(matcher: Matcher, secretGroup: number): { start: number; end: number } | null {
  const groups = matcher.groupCount();
  if (groups === 0) return trimNewlines(matcher, 0);
  if (secretGroup > 0) return secretGroup <= groups && matcher.start(secretGroup) >= 0 ? { start: matcher.start(secretGroup), end: matcher.end(secretGroup) } : null;
  for (let g = 1; g <= groups; g++) if (matcher.start(g) >= 0 && matcher.end(g) > matcher.start(g)) return { start: matcher.start(g), end: matcher.end(g) };
  return trimNewlines(matcher, 0);
}

/** gitleaks trims newlines off a whole match before using it. */
function trimNewlines(matcher: Matcher, group: number): { start: number; end: number } {
  const text = matcher.group(group) ?? '';
  const lead = text.length - text.replace(/^\n+/, '').length;
  const trail = text.length - text.replace(/\n+$/, '').length;
  return { start: matcher.start(group) + lead, end: matcher.end(group) - trail };
}

function allowed(a: Allowlist, secret: string, match: string, line: string): boolean {
  if (a.needsPath) return false;
  const target = a.target === 'match' ? match : a.target === 'line' ? line : secret;
  const lower = secret.toLowerCase();
  const byRegex = a.regexes.some((r) => r.matcher(target).find());
  const byStopword = a.stopwords.some((w) => lower.includes(w));
  if (!a.and) return byRegex || byStopword;
  const checks = [...(a.regexes.length ? [byRegex] : []), ...(a.stopwords.length ? [byStopword] : [])];
  return checks.length > 0 && checks.every(Boolean);
}

function lineAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const to = text.indexOf('\n', end);
  return text.slice(from, to < 0 ? text.length : to);
}

/** Bits per character, as gitleaks computes it. */
export function shannonEntropy(text: string): number {
  if (text === '') return 0;
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let entropy = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}
