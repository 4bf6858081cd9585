/**
 * Secrets and personal data out of production inputs before anything is written. Secrets: gitleaks'
 * rule set (secretRules.ts: cloud, payment and SaaS keys, JWTs, private keys, generic assignments
 * such as `aws_secret_access_key = …`), then the names cloud credential files and environments give a
 * secret (AWS, a GCP service account's key file, Azure: the value is one even where gitleaks' entropy
 * or stopwords let it through), then what people paste into a chat that a code scanner does not look
 * for — HTTP `Authorization:` values of any scheme, `Bearer …`, `sk-…` style keys. Personal
 * data: e-mail addresses (also `%40`-encoded), payment-card numbers (only digit runs that pass the
 * Luhn check, so order numbers stay), IPv4 addresses, phone numbers; then the user's own patterns.
 * Every pattern is RE2, linear in the text. Each finding becomes `[REDACTED:kind]` (the gitleaks rule
 * id, or the kind here); where findings overlap, the first rule wins; how many per kind is counted.
 */
import { RE2JS } from 're2js';
import { findSecrets, shannonEntropy, type Finding } from './secretRules';

export interface Redactor {
  redact(text: string): string;
  /** Replacements since the last take(), per kind (`custom:1` for the first --redact pattern). */
  take(): Map<string, number>;
}

interface OwnRule {
  kind: string;
  /** RE2; group 1, when there is one, is what is redacted (the rest only places it). */
  pattern: string;
  accept?: (found: string) => boolean;
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

/**
 * What a cloud's credential file or environment names a secret: the value is one whatever words it
 * holds; only a placeholder (`xxxx…`, under 3 bits a character) is kept.
 */
const ASSIGNED = `["']?\\s*(?::=|=>|[:=])\\s*["']?`;
const notPlaceholder = (value: string): boolean => shannonEntropy(value) > 3;
const CREDENTIAL_FILE_RULES: readonly OwnRule[] = [
  // ~/.aws/credentials, AWS_SECRET_ACCESS_KEY=…, `"SecretAccessKey": …` (STS JSON), session tokens.
  { kind: 'aws-secret', pattern: `(?i)(?:secret[_-]?access[_-]?key|session[_-]?token|security[_-]?token)${ASSIGNED}([A-Za-z0-9/+=]{16,})`, accept: notPlaceholder },
  // A service account's key file: the key (whole or cut short) and its id.
  { kind: 'gcp-service-account-key', pattern: `"private_key(?:_id)?"\\s*:\\s*"([^"]{16,})`, accept: notPlaceholder },
  // AZURE_CLIENT_SECRET, client secrets in app settings, storage connection strings and keys, SAS signatures.
  { kind: 'azure-secret', pattern: `(?i)(?:client[_-]?secret|storage[_-]?key|account[_-]?key|shared[_-]?access[_-]?key)${ASSIGNED}([A-Za-z0-9/+=~._-]{16,})`, accept: notPlaceholder },
  { kind: 'azure-secret', pattern: `(?i)[?&]sig=([A-Za-z0-9%/+=]{16,})`, accept: notPlaceholder },
];
/** RE2 has no lookaround: a boundary is matched as a character outside group 1. */
const AUTH_RULES: readonly OwnRule[] = [
  { kind: 'authorization', pattern: `(?i)\\b(?:proxy-)?authorization["']?\\s*[:=]\\s*["']?(?:basic|bearer|digest|token|negotiate|apikey|sharedkey)\\s+([A-Za-z0-9._~+/=:-]{8,})` },
  { kind: 'token', pattern: `(?i)\\bbearer\\s+([A-Za-z0-9._~+/-]{16,}=*)` },
  { kind: 'token', pattern: `\\b((?:sk|pk|rk)-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{16,})` },
  // Square's OAuth application secret: gitleaks has the rule but does not ship it.
  { kind: 'square-secret', pattern: `\\b(sq0csp-[\\w-]{43})\\b` },
];
const PERSONAL_RULES: readonly OwnRule[] = [
  { kind: 'email', pattern: `([A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,})` },
  { kind: 'card', pattern: `(?:^|[^\\d-])(\\d(?:[ -]?\\d){12,18})(?:[^\\d-]|$)`, accept: (m) => luhn(m.replace(/\D/g, '')) },
  { kind: 'ipv4', pattern: `(?:^|[^\\d.])((?:(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1?\\d?\\d))(?:[^\\d.]|$)` },
  {
    kind: 'phone',
    pattern: `(?:^|[^\\w+])((?:\\+\\d{1,3}[ .-]?)?(?:\\(\\d{2,4}\\)|\\d{2,4})[ .-]?\\d{3,4}[ .-]?\\d{3,4})(?:\\W|$)`,
    accept: (m) => {
      const n = m.replace(/\D/g, '').length;
      return n >= 8 && n <= 15;
    },
  },
];

interface Compiled {
  kind: string;
  program: RE2JS;
  accept?: (found: string) => boolean;
}

let own: { credentials: Compiled[]; auth: Compiled[]; personal: Compiled[] } | undefined;
const compile = (rules: readonly OwnRule[]): Compiled[] => rules.map((r) => ({ kind: r.kind, program: RE2JS.compile(r.pattern), ...(r.accept ? { accept: r.accept } : {}) }));

/** Compiles the user's patterns (RE2 syntax); throws with the pattern named when one is not valid RE2. */
export function createRedactor(custom: readonly string[] = []): Redactor {
  own ??= { credentials: compile(CREDENTIAL_FILE_RULES), auth: compile(AUTH_RULES), personal: compile(PERSONAL_RULES) };
  const programs = custom.map((source, i) => {
    try {
      return { kind: `custom:${i + 1}`, program: RE2JS.compile(source) };
    } catch (error) {
      throw new Error(`--redact '${source}' is not a pattern RE2 accepts (no backreferences or lookaround): ${(error as Error).message}`);
    }
  });
  let counts = new Map<string, number>();
  const { credentials, auth, personal } = own;
  return {
    take() {
      const taken = counts;
      counts = new Map();
      return taken;
    },
    redact(text: string): string {
      const findings = [...findSecrets(text), ...credentials.flatMap((r) => findAll(r, text)), ...auth.flatMap((r) => findAll(r, text)), ...personal.flatMap((r) => findAll(r, text)), ...programs.flatMap((r) => findAll(r, text))];
      if (findings.length === 0) return text;
      // The first finding wins where they overlap (rule order: secrets, then personal data, then the user's).
      const covered = new Uint8Array(text.length);
      const taken: Finding[] = [];
      for (const f of findings) {
        if (covered.subarray(f.start, f.end).includes(1)) continue;
        covered.fill(1, f.start, f.end);
        taken.push(f);
      }
      taken.sort((a, b) => a.start - b.start);
      let out = '';
      let last = 0;
      for (const f of taken) {
        out += `${text.slice(last, f.start)}[REDACTED:${f.kind}]`;
        last = f.end;
        counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
      }
      return out + text.slice(last);
    },
  };
}

/** Every non-empty match (group 1 when the pattern has one) that its rule accepts, searching on after each. */
function findAll(rule: Compiled, text: string): Finding[] {
  const out: Finding[] = [];
  const matcher = rule.program.matcher(text);
  const group = matcher.groupCount() >= 1 ? 1 : 0;
  for (let from = 0; from <= text.length && matcher.find(from); ) {
    const start = matcher.start(group);
    const end = matcher.end(group);
    if (start >= 0 && end > start && (!rule.accept || rule.accept(text.slice(start, end)))) out.push({ start, end, kind: rule.kind });
    // From the end of what was found: a boundary character matched after it may begin the next one.
    from = Math.max(end > start ? end : matcher.end(), matcher.start() + 1);
  }
  return out;
}

/** Every string in a JSON-like value passed through `f` (keys kept). */
export function mapStrings<T>(value: T, f: (text: string) => string): T {
  if (typeof value === 'string') return f(value) as T;
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f)) as T;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)])) as T;
  return value;
}
