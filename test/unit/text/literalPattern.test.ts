/**
 * Literal pieces with gaps, matched without a regular expression: against the lazy regular expression
 * the pattern stands for (`^A(.*?)B(.*?)C$`), on a small alphabet so that pieces recur and overlap.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../fixtures/propertySeed';
import { matchLiterals } from '../../../src/core/text/literalPattern';
import { matchTemplate, varsFromMessages } from '../../../src/core/sampling/templateVars';
import { parsePromptFile } from '../../../src/core/formats/detect';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const lazyPattern = (literals: readonly string[]) => new RegExp(`^${literals.map(escape).join('([\\s\\S]*?)')}$`);
const piece = fc.string({ unit: fc.constantFrom('a', 'b', ' '), maxLength: 3 });
const text = fc.string({ unit: fc.constantFrom('a', 'b', ' '), maxLength: 14 });

describe('literal pieces with gaps', () => {
  it('fits exactly when the lazy regular expression does, with the same gaps', () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 4 }), text, (literals, candidate) => {
        const regex = lazyPattern(literals).exec(candidate);
        expect(matchLiterals(literals, candidate)).toEqual(regex ? regex.slice(1) : null);
      }),
      seeded(3000),
    );
  });

  it('a known gap must stand unchanged: what is found renders back to the text (a variable used twice)', () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 3, maxLength: 4 }), text, (literals, candidate) => {
        // Gap 0 and the last gap are the same variable.
        const last = literals.length - 2;
        const gaps = matchLiterals(literals, candidate, (gap, earlier) => (gap === last ? earlier[0] : undefined));
        if (gaps === null) return;
        expect(gaps[last]).toBe(gaps[0]);
        expect(literals.map((l, i) => l + (gaps[i] ?? '')).join('')).toBe(candidate);
      }),
      seeded(3000),
    );
  });

  it('no gaps: the text is the one piece', () => {
    expect(matchLiterals(['abc'], 'abc')).toEqual([]);
    expect(matchLiterals(['abc'], 'abcd')).toBeNull();
  });
});

describe('template variables from captured messages', () => {
  it('reads each variable, a repeated one once, and names like `constructor` are names like any other', () => {
    const prompt = parsePromptFile('p.prompty', '---\nname: p\n---\nsystem:\nYou help {{constructor}} in {{city}}; reply in {{city}}\'s language.\n\nuser:\n{{question}}\n').prompts[0]!;
    const sent = [
      { role: 'system', content: "You help Ada in Lyon; reply in Lyon's language." },
      { role: 'user', content: 'Homes?' },
    ];
    expect(varsFromMessages(prompt, sent)).toEqual({ constructor: 'Ada', city: 'Lyon', question: 'Homes?' });
    // The repeated variable with two values is not a reading of this template.
    expect(varsFromMessages(prompt, [{ role: 'system', content: "You help Ada in Lyon; reply in Paris's language." }, sent[1]!])).toBeNull();
    expect(matchTemplate('a\u0000PI0\u0000b\u0000PI0\u0000c', 'axbxc', ['v'])).toEqual(new Map([['v', 'x']]));
  });
});
