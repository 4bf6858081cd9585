/**
 * `npm run demo`: the simulated endpoint with the homes scenario, a fresh code-server with the
 * packaged extension, and a workspace holding the homes assistant in every format as a git repository
 * with its two revisions (A without the "homes" rule, B with it). Prints the URL; Ctrl-C stops all.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim } from '../../src/core/sim/simServer';
import { TestRepo } from '../fixtures/gitRepo';
import { HOMES_WITHOUT_RULE, HOMES_WITH_RULE } from '../fixtures/homesRepo';
import { startCodeServer } from './codeServer';

async function main(): Promise<void> {
  const examples = 'examples/homes';
  const files = Object.fromEntries(readdirSync(examples).map((name) => [name, readFileSync(join(examples, name), 'utf8')]));
  const sim = await startSim({ port: Number(process.env.DEMO_SIM_PORT ?? 0), scenario: parseScenario(files['homes.sim.yaml']!) });
  const server = await startCodeServer(files, {
    'promptInsight.endpoints': [{ name: 'Demo simulator', provider: 'openai', baseUrl: sim.url }],
    'promptInsight.run.endpoint': 'Demo simulator',
    'promptInsight.run.concurrency': 4,
    // The simulator's homes scenario also answers the grounded judge's questions of the knowledge case.
    'promptInsight.judge.endpoint': 'Demo simulator',
    'promptInsight.judge.model': 'sim',
  });
  const repo = new TestRepo(server.workspace);
  repo.git('init', '-q', '-b', 'main');
  repo.commit('Homes assistant: first version', { ...files, 'homes.prompty': HOMES_WITHOUT_RULE });
  repo.commit('Define "homes" as single-family houses', { 'homes.prompty': HOMES_WITH_RULE });
  // The knowledge case: a revision that asks for rounded prices, so the assistant invents one (held on hallucination).
  repo.commit('Listings: round prices to sound attractive', { 'listings.prompty': files['listings.prompty']!.replace('quote prices exactly.', 'round prices to sound attractive.') });
  console.log(`
Prompt Insight demo
  simulated endpoint (scripted answers, not a real model): ${sim.url}
  VS Code (code-server, extension installed from prompt-insight.vsix): ${server.url}

Open homes.prompty: token CodeLens and hover; "▶ Run" streams an answer and adds the TTFT lens;
"Compare revisions" compares A (no rule) with B ("homes" = single-family houses).
Open listings.prompty (the knowledge case): "Compare revisions" holds the revision that rounds prices — it
invents a listing's price; the panel shows the hallucination rate, the claim and the listing it contradicts.
Ctrl-C stops everything.`);
  const stop = async (): Promise<void> => {
    console.log('\nStopping…');
    await server.stop();
    await sim.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error) => {
  console.error(`demo failed: ${(error as Error).message}`);
  process.exit(1);
});
