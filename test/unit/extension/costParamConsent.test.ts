/** The editor's consent to cost-affecting request parameters: once per file and parameter set, kept in workspace state (an in-memory Memento). */
import { describe, expect, it } from 'vitest';
import { costAffectingParams } from '../../../src/core/endpoint/costParams';
import { CostParamConsent } from '../../../src/extension/endpoints/costParamConsent';

function memoryState(): { get<T>(key: string): T | undefined; update(key: string, value: unknown): Promise<void>; data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return { data, get: <T>(key: string) => data.get(key) as T | undefined, update: async (key: string, value: unknown) => void data.set(key, value) };
}

describe('consent to parameters that change cost or retention', () => {
  it('asks the first time, remembers a yes for that file and set, asks again for a changed value or another file', async () => {
    const state = memoryState();
    const consent = new CostParamConsent(state);
    const asked: string[] = [];
    const yes = async (text: string) => (asked.push(text), true);
    const costly = costAffectingParams({ temperature: 0.2, n: 64, store: true });
    expect(await consent.check('prompts/a.prompty', costly, yes)).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('n: 64');
    expect(asked[0]).toContain('store: true');
    // The same set again (in another order): not asked.
    expect(await consent.check('prompts/a.prompty', costAffectingParams({ store: true, n: 64 }), yes)).toBe(true);
    expect(asked).toHaveLength(1);
    // A changed value or another file: asked again.
    expect(await consent.check('prompts/a.prompty', costAffectingParams({ n: 128, store: true }), yes)).toBe(true);
    expect(await consent.check('prompts/b.prompty', costly, yes)).toBe(true);
    expect(asked).toHaveLength(3);
    // It is the workspace state that remembers: a new consent object over the same state does not ask.
    expect(new CostParamConsent(state).isAllowed('prompts/a.prompty', costly)).toBe(true);
  });

  it('a no stops the run and is not remembered; parameters that cost nothing extra never ask', async () => {
    const consent = new CostParamConsent(memoryState());
    let asks = 0;
    const no = async () => (asks++, false);
    const costly = costAffectingParams({ service_tier: 'priority' });
    expect(await consent.check('a.prompty', costly, no)).toBe(false);
    expect(await consent.check('a.prompty', costly, no)).toBe(false);
    expect(asks).toBe(2);
    expect(await consent.check('a.prompty', costAffectingParams({ temperature: 0, max_tokens: 400 }), no)).toBe(true);
    expect(asks).toBe(2);
  });

  it('a hostile state value (not a list) is no consent', async () => {
    const state = memoryState();
    state.data.set('promptInsight.costParams/a.prompty', '{"n":64}');
    expect(new CostParamConsent(state).isAllowed('a.prompty', costAffectingParams({ n: 64 }))).toBe(false);
  });
});
