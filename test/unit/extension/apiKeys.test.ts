/** The origin rule of stored API keys, with an in-memory SecretStorage. */
import { describe, expect, it } from 'vitest';
import type * as vscode from 'vscode';
import { ApiKeys } from '../../../src/extension/endpoints/apiKeys';
import type { EndpointConfig } from '../../../src/core/endpoint/types';

function memorySecrets(): vscode.SecretStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    get: async (key: string) => data.get(key),
    store: async (key: string, value: string) => void data.set(key, value),
    delete: async (key: string) => void data.delete(key),
    onDidChange: (() => ({ dispose() {} })) as never,
  };
}

const endpoint = (baseUrl: string): EndpointConfig => ({ name: 'prod', provider: 'openai', baseUrl });

describe('API keys bound to their origin', () => {
  it('gives the key to the origin it was entered for, without asking', async () => {
    const keys = new ApiKeys(memorySecrets());
    await keys.set(endpoint('https://api.example.com/v1'), 'sk-1');
    let asked = false;
    expect(await keys.get(endpoint('https://api.example.com/v2/'), async () => (asked = true))).toBe('sk-1');
    expect(asked).toBe(false);
  });

  it('a changed origin gets nothing unless the user confirms it; a confirmation rebinds the key', async () => {
    const keys = new ApiKeys(memorySecrets());
    await keys.set(endpoint('https://api.example.com/v1'), 'sk-1');
    const questions: string[][] = [];
    expect(await keys.get(endpoint('https://evil.example.net/v1'), async (from, to) => (questions.push([from, to]), false))).toBeUndefined();
    expect(questions).toEqual([['https://api.example.com', 'https://evil.example.net']]);
    expect(await keys.get(endpoint('http://api.example.com/v1'), async () => false)).toBeUndefined(); // scheme is part of the origin
    expect(await keys.get(endpoint('https://evil.example.net/v1'), async () => true)).toBe('sk-1');
    expect(await keys.get(endpoint('https://evil.example.net/v1'), async () => { throw new Error('must not ask again'); })).toBe('sk-1');
  });

  it('unreadable or cleared secrets give no key', async () => {
    const secrets = memorySecrets();
    const keys = new ApiKeys(secrets);
    secrets.data.set('promptInsight.apiKey/prod', 'not json');
    expect(await keys.get(endpoint('https://api.example.com'), async () => true)).toBeUndefined();
    await keys.set(endpoint('https://api.example.com'), 'sk-2');
    await keys.clear(endpoint('https://api.example.com'));
    expect(await keys.get(endpoint('https://api.example.com'), async () => true)).toBeUndefined();
  });
});
