/** Add Endpoint…: what the user types is checked, and the setting gets exactly the entry — never a key. */
import { describe, expect, it } from 'vitest';
import { baseUrlProblem, endpointEntry, ENDPOINT_KINDS, hasEndpointNamed, modelProblem, nameProblem, withEndpoint, type EndpointAnswers } from '../../../src/core/endpoint/endpointEntry';
import { PROVIDER_KINDS } from '../../../src/core/endpoint/types';

describe('the checks on what is typed', () => {
  it('accepts the default URL of every real kind except the Azure placeholder', () => {
    for (const info of ENDPOINT_KINDS.filter((k) => k.kind !== 'simulated')) {
      const problem = baseUrlProblem(info.kind, info.defaultBaseUrl);
      if (info.kind === 'azure') expect(problem).toMatch(/YOUR-RESOURCE/);
      else expect(problem).toBeUndefined();
    }
    expect(baseUrlProblem('azure', 'https://contoso.openai.azure.com')).toBeUndefined();
  });

  it('refuses what is not an http(s) URL', () => {
    expect(baseUrlProblem('openai-compatible', '')).toMatch(/Enter/);
    expect(baseUrlProblem('openai-compatible', 'localhost:8080/v1')).toMatch(/http/);
    expect(baseUrlProblem('openai-compatible', 'ftp://example.com')).toMatch(/http/);
    expect(baseUrlProblem('openai-compatible', 'http://')).toBeDefined();
  });

  it('refuses a URL that carries a credential, pointing to the key step instead', () => {
    expect(baseUrlProblem('openai-compatible', 'https://user:sk-secret@api.example.com/v1')).toMatch(/SecretStorage/);
    expect(baseUrlProblem('azure', 'https://contoso.openai.azure.com?api-key=abc')).toMatch(/api-key=/);
    expect(baseUrlProblem('openai-compatible', 'https://example.com/v1?key=abc')).toMatch(/key=/);
    expect(baseUrlProblem('azure', 'https://contoso.openai.azure.com?api-version=2024-10-21')).toBeUndefined();
  });

  it('needs a model where the server does (Azure deployment, Ollama) and never one with spaces', () => {
    expect(modelProblem('azure', ' ')).toMatch(/deployment/);
    expect(modelProblem('ollama', '')).toMatch(/model/);
    expect(modelProblem('openai-compatible', '')).toBeUndefined();
    expect(modelProblem('llama.cpp', 'my model')).toMatch(/spaces/);
  });

  it('needs a name', () => {
    expect(nameProblem('  ')).toBeDefined();
    expect(nameProblem('Local llama')).toBeUndefined();
  });
});

describe('the entry written to promptInsight.endpoints', () => {
  it('has the setting’s shape, with the provider each kind maps to', () => {
    expect(endpointEntry({ kind: 'llama.cpp', name: ' Local llama ', baseUrl: 'http://127.0.0.1:8080/v1/', model: '' })).toEqual({ name: 'Local llama', provider: 'openai', baseUrl: 'http://127.0.0.1:8080/v1' });
    expect(endpointEntry({ kind: 'azure', name: 'Azure', baseUrl: 'https://contoso.openai.azure.com', model: 'gpt4o-deploy' })).toEqual({ name: 'Azure', provider: 'azure', baseUrl: 'https://contoso.openai.azure.com', model: 'gpt4o-deploy' });
    expect(endpointEntry({ kind: 'ollama', name: 'Ollama', baseUrl: 'http://localhost:11434', model: 'llama3.2' }).provider).toBe('ollama');
    for (const info of ENDPOINT_KINDS) expect(PROVIDER_KINDS).toContain(info.provider);
  });

  it('never carries a key, whatever the answers object holds', () => {
    const answers = { kind: 'openai-compatible', name: 'OpenAI', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', apiKey: 'sk-live-123', key: 'sk-live-123', headers: { authorization: 'Bearer sk-live-123' } } as EndpointAnswers;
    const entry = endpointEntry(answers);
    expect(Object.keys(entry).sort()).toEqual(['baseUrl', 'model', 'name', 'provider']);
    expect(JSON.stringify(entry)).not.toContain('sk-live');
  });

  it('refuses answers that fail their checks', () => {
    expect(() => endpointEntry({ kind: 'azure', name: 'Azure', baseUrl: 'https://contoso.openai.azure.com' })).toThrow(/deployment/);
    expect(() => endpointEntry({ kind: 'openai-compatible', name: 'x', baseUrl: 'https://u:p@example.com' })).toThrow(/SecretStorage/);
  });

  it('appends a new name and replaces the entry of an existing one, leaving the others alone', () => {
    const existing = [{ name: 'A', provider: 'openai', baseUrl: 'http://a/v1', headers: { 'x-team': 'ml' } }, { name: 'B', provider: 'ollama', baseUrl: 'http://b:11434' }];
    const entry = endpointEntry({ kind: 'llama.cpp', name: 'B', baseUrl: 'http://127.0.0.1:8080/v1' });
    expect(hasEndpointNamed(existing, 'B ')).toBe(true);
    expect(hasEndpointNamed(existing, 'C')).toBe(false);
    expect(withEndpoint(existing, entry)).toEqual([existing[0], entry]);
    expect(withEndpoint(existing, { ...entry, name: 'C' })).toEqual([...existing, { ...entry, name: 'C' }]);
    expect(withEndpoint(undefined, entry)).toEqual([entry]);
    expect(existing).toHaveLength(2); // the setting's value is not mutated
  });
});
