/** Versions by content: a revision's literal text between its variables, found in the messages a call sent. */
import { describe, expect, it } from 'vitest';
import { parsePromptFile } from '../../../src/core/formats/detect';
import { matchesTemplate, promptTemplate, sha256 } from '../../../src/core/telemetry/contentMatch';

const template = (text: string) => promptTemplate(parsePromptFile('p.prompty', text).prompts[0]!);
const PROMPT = '---\nname: p\n---\nsystem:\nYou help {{user.name}} in {{city}}. Answer in {{city}}\'s language, in {{n}} lines.\n\nuser:\n{{question}}\n';

describe('content match', () => {
  it('the literals in order with the variables as holes (nested paths too); other text or order does not match', () => {
    const t = template(PROMPT);
    const ok = [{ role: 'system', content: "You help Ada in Lyon. Answer in Lyon's language, in 3 lines." }, { role: 'user', content: 'Homes?' }];
    expect(matchesTemplate(t, ok)).toBe(true);
    // Earlier turns of a conversation may lie between the template's messages.
    expect(matchesTemplate(t, [ok[0]!, { role: 'assistant', content: 'Hi' }, { role: 'user', content: 'x' }])).toBe(true);
    expect(matchesTemplate(t, [{ role: 'system', content: "You help Ada in Lyon. Reply in Lyon's language, in 3 lines." }, ok[1]!])).toBe(false);
    expect(matchesTemplate(t, [ok[1]!, ok[0]!])).toBe(false);
    expect(matchesTemplate(t, [{ role: 'user', content: ok[0]!.content }, ok[1]!])).toBe(false);
  });

  it('the literals before and after a hole must not overlap: "A {{x}} A" does not match "A"', () => {
    const t = template('---\nname: p\n---\nsystem:\nAnswer briefly. {{x}} Answer briefly.\n');
    expect(matchesTemplate(t, [{ role: 'system', content: 'Answer briefly.' }])).toBe(false);
    expect(matchesTemplate(t, [{ role: 'system', content: 'Answer briefly. Lyon Answer briefly.' }])).toBe(true);
  });

  it('a template of variables alone is no evidence; a static system message has a hash an app can send instead', () => {
    expect(matchesTemplate(template('---\nname: p\n---\n{{question}}\n'), [{ role: 'user', content: 'anything' }])).toBe(false);
    const t = template('---\nname: p\n---\nsystem:\nYou list homes, houses only.\n\nuser:\n{{q}}\n');
    expect(t.systemSha256).toBe(sha256('You list homes, houses only.'));
    expect(template(PROMPT).systemSha256).toBeNull();
  });

  it('a message with template logic matches any text of its role; the others still decide', () => {
    const t = template('---\nname: p\n---\nsystem:\nYou are a careful real-estate assistant.\n\nuser:\n{% if x %}A{% endif %}\n');
    expect(matchesTemplate(t, [{ role: 'system', content: 'You are a careful real-estate assistant.' }, { role: 'user', content: 'whatever' }])).toBe(true);
    expect(matchesTemplate(t, [{ role: 'system', content: 'You are a real-estate assistant.' }, { role: 'user', content: 'whatever' }])).toBe(false);
  });

  it('a repository\'s variable names never write to a prototype: `{{__proto__.polluted}}`, `{{constructor.prototype.x}}`', () => {
    for (const variable of ['__proto__.polluted', 'constructor.prototype.polluted', 'a.__proto__.polluted']) {
      const t = template(`---\nname: p\n---\nsystem:\nYou are a careful real-estate assistant. {{${variable}}}\n`);
      expect(({} as Record<string, unknown>).polluted, variable).toBeUndefined();
      expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
      expect(t.messages).toHaveLength(1);
    }
  });
});
