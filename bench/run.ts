/** `npm run bench`: every benchmark, tables printed side by side with their peers. */
import { cpus } from 'node:os';
import { benchHover } from './hover';
import { benchTokenizers } from './tokenizers';
import { benchModelTokenizers } from './modelTokenizers';
import { benchActivation } from './activation';
import { benchHistory } from './history';
import { benchRender } from './render';
import { benchTtft } from './ttft';
import { benchWorstCase } from './worstCase';
import { benchColdStart } from './coldStart';
import { benchEngine } from './engine';
import { benchFuzz, benchUnicodeScan } from './fuzz';
import { benchLoad } from './load';
import { benchLoadMemory } from './loadMemory';
import { benchProd } from './prodImport';
import { benchSample } from './sample';
import { benchDecide } from './decide';
import { benchHostileTokenizer } from './hostileTokenizer';
import { benchProductionPage } from './productionPage';

async function main(): Promise<void> {
  const which = process.argv.slice(2);
  const want = (name: string) => which.length === 0 || which.includes(name);
  console.log(`# Prompt Insight benchmarks\n\n${new Date().toISOString()} · Node ${process.version} · ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'}\n`);
  if (want('tokenizers')) console.log(`${await benchTokenizers()}\n`);
  if (want('model-tokenizers')) console.log(`${await benchModelTokenizers()}\n`);
  if (want('cold-start')) console.log(`${await benchColdStart()}\n`);
  if (want('worst-case')) console.log(`${await benchWorstCase()}\n`);
  if (want('hover')) console.log(`${await benchHover()}\n`);
  if (want('hostile-tokenizer')) console.log(`${await benchHostileTokenizer()}\n`);
  if (want('ttft')) console.log(`${await benchTtft()}\n`);
  if (want('render')) console.log(`${await benchRender()}\n`);
  if (want('history')) console.log(`${await benchHistory()}\n`);
  if (want('activation')) console.log(`${await benchActivation()}\n`);
  if (want('engine')) console.log(`${await benchEngine()}\n`);
  if (want('load')) console.log(`${await benchLoad()}\n`);
  if (want('load-memory')) console.log(`${await benchLoadMemory()}\n`);
  if (want('prod')) console.log(`${await benchProd()}\n`);
  if (want('production-page')) console.log(`${await benchProductionPage()}\n`);
  if (want('sample')) console.log(`${await benchSample()}\n`);
  if (want('decide')) console.log(`${await benchDecide()}\n`);
  if (want('fuzz')) console.log(`${await benchFuzz()}\n`);
  // Every code point against tiktoken: about 2 minutes, only when named.
  if (which.includes('unicode-scan')) console.log(`${await benchUnicodeScan()}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
