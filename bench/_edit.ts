import { chineseCorpus } from '../test/fixtures/corpora.mjs';
import { analyzePromptText } from '../src/core/analysis';
import { TokenCounter } from '../src/core/tokens/counter';
async function main() {
  const body = chineseCorpus(200_000);
  let text = `---\nname: big\nmodel:\n  api: chat\n  configuration:\n    name: gpt-4o\n---\nsystem:\n${body}\n\nuser:\n请找附近的独栋房子。\n`;
  const counter = new TokenCounter();
  await analyzePromptText('big.prompty', text, counter, { defaultModel: 'gpt-4o' });
  const total: number[] = [];
  for (let i = 0; i < 400; i++) {
    const at = 1000 + Math.floor(Math.random() * 190000);
    text = text.slice(0, at) + '房' + text.slice(at + 1);
    const t = performance.now(); await analyzePromptText('big.prompty', text, counter, { defaultModel: 'gpt-4o' }); total.push(performance.now() - t);
  }
  total.sort((a, b) => a - b);
  console.log('analysis p50', total[200]!.toFixed(2), 'p95', total[380]!.toFixed(2));
}
main();
