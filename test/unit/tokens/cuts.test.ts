/** Cutting pieces at boundaries no token spans never changes the tokens (checked against tiktoken). */
import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../fixtures/propertySeed';
import { loadEncoder } from '../../../src/core/tokens/engine';
import type { EncodingName } from '../../../src/core/tokens/encodingNames';

// Common characters, so that multi-character tokens (and so unsafe boundaries) are frequent.
const CHARS = [...'的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严龙飞'];

async function exactOn(encoding: EncodingName, text: string, oracle: ReturnType<typeof get_encoding>) {
  const ours = await loadEncoder(encoding);
  ours.clearCache();
  expect(ours.encode(text)).toEqual(Array.from(oracle.encode_ordinary(text)));
  ours.clearCache();
  expect(ours.count(text)).toBe(oracle.encode_ordinary(text).length);
}

describe('safe cuts inside pieces', () => {
  for (const encoding of ['o200k_base', 'cl100k_base'] as EncodingName[]) {
    it(`${encoding}: 3,000 random runs of common Chinese characters (with mixed punctuation, kana, emoji) encode as tiktoken does`, async () => {
      const oracle = get_encoding(encoding);
      const extra = ['，', '。', ' ', 'の', 'ア', '😀', 'a', '1', '、', '々'];
      await fc.assert(
        fc.asyncProperty(fc.array(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...CHARS) }, { weight: 1, arbitrary: fc.constantFrom(...extra) }), { minLength: 1, maxLength: 60 }), async (chars) => {
          await exactOn(encoding, chars.join(''), oracle);
        }),
        seeded(3000),
      );
    });
  }
});
