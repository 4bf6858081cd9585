/** A prompt's retrieval URL is shown before the editor sends a query there (issue 25). */
import { describe, expect, it } from 'vitest';
import { RetrievalConsent, retrievalDestination } from '../../../src/extension/endpoints/retrievalConsent';

function memento(initial: Record<string, unknown> = {}) {
  const data = new Map(Object.entries(initial));
  return { get: <T>(key: string) => data.get(key) as T, update: async (key: string, value: unknown) => void data.set(key, value), data };
}

describe('consent to a retrieval URL', () => {
  it('asks the first time with the destination (no credentials, no query string), remembers a yes per file and URL', async () => {
    const state = memento();
    const consent = new RetrievalConsent(state);
    const asked: string[] = [];
    const yes = async (to: string) => (asked.push(to), true);
    expect(await consent.check('rag.prompty', 'http://user:secret@127.0.0.1:8000/search?k=1', yes)).toBe(true);
    expect(asked).toEqual(['http://127.0.0.1:8000/search']);
    expect(await consent.check('rag.prompty', 'http://127.0.0.1:8000/search', yes)).toBe(true);
    expect(asked).toHaveLength(1);
    expect(await consent.check('rag.prompty', 'https://elsewhere.example/search', yes)).toBe(true);
    expect(await consent.check('other.prompty', 'http://127.0.0.1:8000/search', yes)).toBe(true);
    expect(asked).toEqual(['http://127.0.0.1:8000/search', 'https://elsewhere.example/search', 'http://127.0.0.1:8000/search']);
    expect(JSON.stringify([...state.data.values()])).not.toContain('secret');
  });

  it('a no stops the run and is not remembered; a hostile stored value is no consent', async () => {
    const consent = new RetrievalConsent(memento({ 'promptInsight.retrieval/rag.prompty': 'http://127.0.0.1:8000/search' }));
    let asks = 0;
    expect(await consent.check('rag.prompty', 'http://127.0.0.1:8000/search', async () => (asks++, false))).toBe(false);
    expect(await consent.check('rag.prompty', 'http://127.0.0.1:8000/search', async () => (asks++, false))).toBe(false);
    expect(asks).toBe(2);
    expect(retrievalDestination('https://a.example:8443/v1/search#x')).toBe('https://a.example:8443/v1/search');
  });
});
