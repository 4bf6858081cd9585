/**
 * Redaction before `sample` writes anything, on a corpus of real-looking secrets and personal data as
 * people paste them into a chat or a log line (the formats of AWS, Stripe, Google, OpenAI, GitHub,
 * Slack, JWTs, HTTP auth headers; e-mails plain and %40-encoded; card numbers that pass Luhn). Every one
 * is replaced; text that only looks similar (an order number, a version, ordinary words) is kept.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../../src/core/sampling/redact';
import { shannonEntropy } from '../../../src/core/sampling/secretRules';

// Made-up values in each provider's format (none is a real credential).
const CORPUS: { text: string; secret: string }[] = [
  { text: 'my config has aws_secret_access_key = Kq8vR2mX9pL4tZ7wN3bY6cH1dF5gJ0sA2eU8iO4r', secret: 'Kq8vR2mX9pL4tZ7wN3bY6cH1dF5gJ0sA2eU8iO4r' },
  { text: 'AWS_SECRET_ACCESS_KEY: "tX4/9bQw+Lm2Zk7Pv1Nr8Hc3Jy6Fd0Ga5Se2Ui9Oq"', secret: 'tX4/9bQw+Lm2Zk7Pv1Nr8Hc3Jy6Fd0Ga5Se2Ui9Oq' },
  { text: 'the key id is AKIAQ3EGRZ7KXN4PLM2W and it fails', secret: 'AKIAQ3EGRZ7KXN4PLM2W' },
  { text: 'charge it with sk_live_51HqTzQ2eZvKYlo2C8xWmNp4RtUv9AbCdEfGh now', secret: 'sk_live_51HqTzQ2eZvKYlo2C8xWmNp4RtUv9AbCdEfGh' },
  { text: 'token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIn0.Qm9ndXNTaWduYXR1cmVfeFl6QWJDZEVmR2g is expired', secret: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIn0.Qm9ndXNTaWduYXR1cmVfeFl6QWJDZEVmR2g' },
  { text: 'curl fails with header Authorization: Basic amFuZS5kb2U6czNjcjN0UGFzcw== on the API', secret: 'amFuZS5kb2U6czNjcjN0UGFzcw==' },
  { text: 'maps key AIzaSyD7kQ2xW9vB3nM5pL8tR1yU4iO6eA0sZcF in the app', secret: 'AIzaSyD7kQ2xW9vB3nM5pL8tR1yU4iO6eA0sZcF' },
  { text: 'please email jane.doe%40example.com about the listing', secret: 'jane.doe%40example.com' },
  { text: 'or write to j.smith+homes@mail.example.org today', secret: 'j.smith+homes@mail.example.org' },
  { text: 'OPENAI_API_KEY=sk-proj-Xq7Lm2Rv9Tz4Wk1Np8Hc5Jy3Fd6Ga0Se2Ui9Oq4Bt7Vw1Zx', secret: 'sk-proj-Xq7Lm2Rv9Tz4Wk1Np8Hc5Jy3Fd6Ga0Se2Ui9Oq4Bt7Vw1Zx' },
  { text: 'pay with 4539 1488 0343 6467 please', secret: '4539 1488 0343 6467' },
  { text: 'gh token ghp_R8xK2mQ9vL4tZ7wN3bY6cH1dF5gJ0sA2eU8i works', secret: 'ghp_R8xK2mQ9vL4tZ7wN3bY6cH1dF5gJ0sA2eU8i' },
  { text: 'slack xoxb-2048123456-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx in chat', secret: 'xoxb-2048123456-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx' },
  { text: 'call me: Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc', secret: '9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc' },
];

describe('redaction on a corpus of real-looking secrets', () => {
  for (const { text, secret } of CORPUS) {
    it(`removes ${secret.slice(0, 24)}…`, () => {
      const redactor = createRedactor();
      const out = redactor.redact(text);
      expect(out).not.toContain(secret);
      expect(out).toMatch(/\[REDACTED:[\w:-]+\]/);
      expect([...redactor.take().values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    });
  }

  it('keeps what only looks similar: order numbers that fail Luhn, versions, ordinary words about keys and access', () => {
    const text = 'Order 1234567812345678 for version 2.3.1; I need access to the house key and the secret garden.';
    expect(createRedactor().redact(text)).toBe(text);
  });

  it('says which rule found each secret, counted per kind', () => {
    const redactor = createRedactor();
    redactor.redact(CORPUS.map((c) => c.text).join('\n'));
    const kinds = redactor.take();
    for (const kind of ['stripe-access-token', 'jwt', 'gcp-api-key', 'aws-access-token', 'email', 'card']) expect(kinds.get(kind), kind).toBeGreaterThanOrEqual(1);
  });

  it('entropy as gitleaks computes it', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('ab')).toBe(1);
  });
});
