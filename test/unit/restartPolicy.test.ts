import { describe, expect, it } from 'vitest';
import { RestartPolicy } from '../../src/extension/restartPolicy';

describe('language server restart policy', () => {
  it('restarts after crashes but stops a crash loop, and forgives old crashes', () => {
    const policy = new RestartPolicy(4, 180_000);
    const decisions = [0, 1000, 2000, 3000, 4000].map((t) => policy.shouldRestart(t));
    expect(decisions).toEqual([true, true, true, true, false]);
    expect(policy.shouldRestart(4000 + 180_001)).toBe(true); // the window moved on
  });
});
