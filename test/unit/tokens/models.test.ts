import { describe, expect, it } from 'vitest';
import { modelTokenInfo, normalizeModelId } from '../../../src/core/tokens/models';

describe('model → encoding', () => {
  it.each([
    ['gpt-4o', 'o200k_base', true, 128_000],
    ['openai/gpt-4o-mini', 'o200k_base', true, 128_000],
    ['gpt-4.1-mini', 'o200k_base', true, 1_047_576],
    ['o3-mini', 'o200k_base', true, 200_000],
    ['gpt-5', 'o200k_base', true, 400_000],
    ['GPT-4o (copilot)', 'o200k_base', true, 128_000],
    ['gpt-4', 'cl100k_base', true, 8_192],
    ['gpt-4-turbo', 'cl100k_base', true, 128_000],
    ['gpt-35-turbo', 'cl100k_base', true, 16_385],
    ['gpt-3.5-turbo-0125', 'cl100k_base', true, 16_385],
  ])('%s uses %s (exact: %s)', (model, encoding, exact, window) => {
    expect(modelTokenInfo(model)).toMatchObject({ encoding, exact, contextWindowTokens: window });
  });

  it.each([
    ['claude-sonnet-4', 'Claude'],
    ['googleai/gemini-1.5-pro', 'Gemini'],
    ['llama3.1:8b', 'Llama'],
    ['Qwen/Qwen2.5-7B-Instruct', 'Qwen'],
    ['mistral-large', 'Mistral'],
    ['something-new', 'unknown model'],
  ])('%s is an estimate labelled %s', (model, family) => {
    const info = modelTokenInfo(model);
    expect(info.exact).toBe(false);
    expect(info.family).toBe(family);
    expect(info.encoding).toBe('o200k_base');
  });

  it('normalises provider prefixes, tags and display names', () => {
    expect(normalizeModelId('azure/gpt-4o')).toBe('gpt-4o');
    expect(normalizeModelId('llama3.1:8b')).toBe('llama3.1');
    expect(normalizeModelId('Claude Sonnet 4')).toBe('claude-sonnet-4');
  });
});
