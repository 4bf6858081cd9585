/**
 * `npm run demo`: the simulated endpoint with the homes scenario, a fresh code-server with the
 * packaged extension, and a workspace holding the homes assistant in every format as a git repository
 * with its two revisions (A without the "homes" rule, B with it), and a week of production traces of
 * homes.prompty ending at the current hour (A live all week, B in a gray release over the last two days).
 * Prints the URL; Ctrl-C stops all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseScenario } from '../../src/core/sim/scenario';
import { startSim } from '../../src/core/sim/simServer';
import { contentLabels } from '../../src/core/telemetry/prodVersions';
import { HOMES_WITHOUT_RULE, HOMES_WITH_RULE } from '../fixtures/homesRepo';
import { startCodeServer } from './codeServer';
import { DEMO_TRACES, demoFiles, demoSettings, prepareDemoRepo } from './demoWorkspace';

/** The demo's folder (VS Code's user data, extensions, the workspace): removed however the demo ends. */
const root = mkdtempSync(join(tmpdir(), 'pi-demo-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
const running: { stop: () => Promise<void> }[] = [];
let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping…');
  for (const part of running.reverse()) await part.stop().catch(() => undefined);
  process.exit(code); // the exit handler removes the folder
}
// Ctrl-C during start-up too: whatever has started is stopped, and the folder removed.
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

async function main(): Promise<void> {
  const files = demoFiles();
  const sim = await startSim({ port: Number(process.env.DEMO_SIM_PORT ?? 0), scenario: parseScenario(files['homes.sim.yaml']!) });
  running.push({ stop: () => sim.close() });
  const server = await startCodeServer(files, demoSettings(sim.url), { root });
  running.push(server);
  prepareDemoRepo(server.workspace, files);
  // The app labels each call with the prompt's content hash (`prompt-insight version`), which survives these fresh commits.
  const label = async (text: string) => (await contentLabels('homes.prompty', text)).get('homes-assistant')!;
  const [a, b] = [await label(HOMES_WITHOUT_RULE), await label(HOMES_WITH_RULE)];
  const cli = `node ${resolve('dist/cli.js')}`;
  const traces = `--traces ${DEMO_TRACES}`;
  console.log(`
Prompt Insight demo
  simulated endpoint (scripted answers, not a real model): ${sim.url}
  VS Code (code-server, extension installed from prompt-insight.vsix): ${server.url}

Open homes.prompty: token CodeLens and hover; "▶ Run" streams an answer and adds the TTFT lens;
"Compare revisions" compares A (no rule) with B ("homes" = single-family houses).
Open listings.prompty (the knowledge case): "Compare revisions" holds the revision that rounds prices — it
invents a listing's price; the panel shows the hallucination rate, the claim and the listing it contradicts.
Production: telemetry/homes-week.jsonl.gz holds a week of traces of homes.prompty (OpenTelemetry SDK spans of
requests to the simulator, ending this hour): A (${a}) served all week, B (${b}) in a gray
release over the last two days (10%, then 50%); one slow night two nights ago. Hover homes.prompty or run
"Prompt Insight: Show Production". In a terminal, in ${server.workspace}:
  ${cli} prod homes.prompty ${traces} --since 7d
  ${cli} watch homes.prompty ${traces}                       (finds the slow night)
  ${cli} sample homes.prompty ${traces} --out homes.tests.yaml   (the pasted API key is redacted)
  ${cli} prod homes.prompty ${traces} --since 7d --decide --base ${a} --head ${b} --registry-rev HEAD   (promotes B)
Ctrl-C stops everything and removes the demo's folder (${root}).`);
}

main().catch((error) => {
  console.error(`demo failed: ${(error as Error).message}`);
  void stop(1);
});
