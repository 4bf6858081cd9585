/**
 * The open-model families beside Qwen: Llama 3.1, DeepSeek V3 and Gemma 3, with their real
 * tokenizer.json and chat templates (install-tokenizers.sh). Ids against @lenml/tokenizers on real
 * texts; the counter's segment cache where the pre-tokeniser allows it (Gemma's SentencePiece model
 * is counted whole); the request through each model's own template, as its model card writes it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TokenizerLoader } from '@lenml/tokenizers';
import { describe, expect, it } from 'vitest';
import { TokenCounter } from '../../src/core/tokens/counter';
import { loadTokenizerFolder } from '../../src/core/tokens/tokenizerFolder';
import { runCli } from '../fixtures/cli';
import { chineseCorpus, codeCorpus, englishCorpus } from '../fixtures/corpora.mjs';

const DIR = join(process.env.PROMPT_INSIGHT_TOOLS ?? resolve('.e2e-tools'), 'tokenizers');
const SYSTEM = 'Answer in one sentence. 简短回答。';
const USER = 'Which river flows through Vienna?';

const FAMILIES = [
  { name: 'llama3_1', model: 'llama-3.1-8b-instruct', segmentable: true, chat: `<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n${SYSTEM}<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n${USER}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n` },
  { name: 'deepseek_v3', model: 'deepseek-v3', segmentable: true, chat: `<｜begin▁of▁sentence｜>${SYSTEM}<｜User｜>${USER}<｜Assistant｜>` },
  { name: 'gemma3', model: 'gemma-3-12b-it', segmentable: false, chat: `<bos><start_of_turn>user\n${SYSTEM}\n\n${USER}<end_of_turn>\n<start_of_turn>model\n` },
];

describe.each(FAMILIES)(`$name (${DIR})`, ({ name, model, segmentable, chat }) => {
  const folder = join(DIR, name);
  const reference = () =>
    TokenizerLoader.fromPreTrained({ tokenizerJSON: JSON.parse(readFileSync(join(folder, 'tokenizer.json'), 'utf8')), tokenizerConfig: JSON.parse(readFileSync(join(folder, 'tokenizer_config.json'), 'utf8')) });

  it('same ids as @lenml/tokenizers on Chinese, English and code; segment sums equal whole counts', async () => {
    const ours = await loadTokenizerFolder({ path: folder, origin: 'user' });
    const lenml = reference();
    const text = `${chineseCorpus(4_000)}\n${englishCorpus(4_000)}\n${codeCorpus(4_000)}\n`;
    const ids = ours.encoder!.encode(text);
    expect(ids).toEqual(lenml.encode(text, { add_special_tokens: false }));
    expect(ours.encoder!.segmentable).toBe(segmentable);
    const counter = new TokenCounter();
    expect(counter.countVersion(ours.encoder!, text, 'slot')).toBe(ids.length);
    const edited = `${text.slice(0, 5_000)}\n\nNew line. 新的一行。${text.slice(5_000)}`;
    expect(counter.countVersion(ours.encoder!, edited, 'slot')).toBe(lenml.encode(edited, { add_special_tokens: false }).length);
  });

  it("the request through the model's own chat template is counted exactly", async () => {
    const dir = mkdtempSync(join(tmpdir(), `pi-${name}-`));
    writeFileSync(join(dir, 'ask.prompt.yml'), `name: ask\nmodel: ${model}\nmessages:\n  - role: system\n    content: ${JSON.stringify(SYSTEM)}\n  - role: user\n    content: ${JSON.stringify(USER)}\n`);
    const result = await runCli(['tokens', join(dir, 'ask.prompt.yml'), '--tokenizer', folder, '--json'], dir);
    expect(result.stderr).toBe('');
    const prompt = JSON.parse(result.stdout).files[0].prompts[0];
    expect(prompt).toMatchObject({ exact: true, countedWith: 'tokenizer', templateFrom: 'tokenizer_config.json' });
    expect(prompt.tokens.total).toBe(reference().encode(chat, { add_special_tokens: false }).length);
  });
});
