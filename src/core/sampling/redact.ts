/**
 * Secrets and personal data out of production inputs before anything is written: e-mail addresses,
 * phone numbers, payment-card numbers (only digit runs that pass the Luhn check, so order numbers
 * stay), API keys and bearer tokens (`sk-…`, `Bearer …`, GitHub, AWS, Slack), IPv4 addresses, and the
 * user's own patterns. Each match becomes `[REDACTED:kind]`; how many per kind is counted. The user's
 * patterns run on RE2 (linear time: a pattern from a config file cannot hang the sampler).
 */
import { RE2JS } from 're2js';

export interface Redactor {
  redact(text: string): string;
  /** Replacements since the last take(), per kind (`custom:1` for the first --redact pattern). */
  take(): Map<string, number>;
}

const luhn = (digits: string): boolean => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
};

/** In order: tokens before anything that could match part of one; cards before phones (both digit runs). */
const DEFAULT_PATTERNS: readonly { kind: string; pattern: RegExp; accept?: (match: string) => boolean }[] = [
  { kind: 'token', pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/gi },
  { kind: 'token', pattern: /\b(?:sk|pk|rk)-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{16,}/g },
  { kind: 'token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,})\b/g },
  { kind: 'email', pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  { kind: 'card', pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g, accept: (m) => luhn(m.replace(/\D/g, '')) },
  { kind: 'ipv4', pattern: /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\d.])/g },
  { kind: 'phone', pattern: /(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)|\d{2,4})[ .-]?\d{3,4}[ .-]?\d{3,4}(?!\w)/g, accept: (m) => { const n = m.replace(/\D/g, '').length; return n >= 8 && n <= 15; } },
];

/** Compiles the user's patterns (RE2 syntax); throws with the pattern named when one is not valid RE2. */
export function createRedactor(custom: readonly string[] = []): Redactor {
  let counts = new Map<string, number>();
  const programs = custom.map((source, i) => {
    try {
      return { kind: `custom:${i + 1}`, program: RE2JS.compile(source) };
    } catch (error) {
      throw new Error(`--redact '${source}' is not a pattern RE2 accepts (no backreferences or lookaround): ${(error as Error).message}`);
    }
  });
  const count = (kind: string) => counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return {
    take() {
      const taken = counts;
      counts = new Map();
      return taken;
    },
    redact(text: string): string {
      let out = text;
      for (const { kind, pattern, accept } of DEFAULT_PATTERNS) {
        out = out.replace(pattern, (match) => {
          if (accept && !accept(match)) return match;
          count(kind);
          return `[REDACTED:${kind}]`;
        });
      }
      for (const { kind, program } of programs) {
        const matcher = program.matcher(out);
        let result = '';
        let last = 0;
        while (matcher.find()) {
          const start = matcher.start();
          const end = matcher.end();
          if (end === start) continue; // an empty match redacts nothing
          result += `${out.slice(last, start)}[REDACTED:${kind}]`;
          last = end;
          count(kind);
        }
        out = result + out.slice(last);
      }
      return out;
    },
  };
}

/** Every string in a JSON-like value redacted (keys kept). */
export function redactValue(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redactor));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, redactor)]));
  return value;
}
