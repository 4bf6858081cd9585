/** Prompty files other people wrote (microsoft/prompty's runtime tests): the spec's shorthands. */
import { describe, expect, it } from 'vitest';
import { analyzePromptText } from '../../../src/core/analysis';
import { TokenCounter } from '../../../src/core/tokens/counter';
import { realworldFile } from '../../fixtures/realworld';

const analyze = async (path: string) => {
  const { path: full, text } = realworldFile(path);
  return analyzePromptText(full, text, new TokenCounter(), { defaultModel: 'gpt-4o', tokenBudget: 0 });
};

describe('Prompty shorthands in real files', () => {
  it.each([
    ['microsoft/prompty/runtime/csharp/Prompty.Core.Tests/Prompts/minimal.prompty', 'gpt-4'],
    ['microsoft/prompty/runtime/python/prompty/tests/prompts/shorthand_threaded.prompty', 'gpt-4o'],
    ['microsoft/prompty/runtime/python/prompty/tests/prompts/shorthand_model_string.prompty', 'gpt-4o'],
    ['microsoft/prompty/runtime/python/prompty/tests/prompts/shorthand_quick.prompty', 'gpt-4o-mini'],
    ['microsoft/prompty/runtime/python/prompty/tests/prompts/shorthand_no_name.prompty', 'gpt-4o'],
    ['microsoft/prompty/vscode/prompty/test-sample.prompty', 'gpt-4o'],
  ])("'model: <id>' is the model, not an error: %s", async (path, model) => {
    const analysis = await analyze(path);
    expect(analysis.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(analysis.prompts[0]!.model.model).toBe(model);
  });

  it('scalar inputs are their defaults: no false "no value" warnings, the values are counted', async () => {
    const analysis = await analyze('microsoft/prompty/runtime/prompty/tests/agent/simple_agent.prompty');
    expect(analysis.diagnostics.filter((d) => d.code === 'unresolved-variable')).toEqual([]);
    expect(analysis.prompts[0]!.model.model).toBe('gpt-4o-mini');
  });
});
