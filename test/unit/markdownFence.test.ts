/** Code fences around any text: longer than its longest backtick run, whatever the text's size. */
import { describe, expect, it } from 'vitest';
import { longestBacktickRun } from '../../src/core/text/backtickRuns';
import { fenceFor } from '../../src/extension/shared/markdownFence';

describe('code fences', () => {
  it('longer than the longest run of backticks, at least three', () => {
    expect(fenceFor('no ticks')).toBe('```');
    expect(fenceFor('a ```` b `` c')).toBe('`````');
    expect(longestBacktickRun('``x```y`')).toBe(3);
  });

  it('an answer of 300,000 separate backticks does not overflow the stack (a spread of its runs did)', () => {
    const hostile = '` '.repeat(300_000);
    expect(fenceFor(hostile)).toBe('```');
    expect(fenceFor(`${hostile}${'`'.repeat(7)}`)).toBe('`'.repeat(8));
    expect(longestBacktickRun(`${hostile}${'`'.repeat(7)}`)).toBe(7);
  });
});
