import { describeReadError, readUserFile } from '../core/files/workspaceFile';
import { parseScenario } from '../core/sim/scenario';
import { DEFAULT_SIM_OPTIONS, SIM_FAULTS, type SimFault } from '../core/sim/simOptions';
import { startSim } from '../core/sim/simServer';
import { numberFlag, parseArgs, stringFlag, UsageError } from './args';
import type { CliIO } from './io';
import { SIM_USAGE } from './help/usage';

/** A scenario is a page of YAML; this is far above any real one. */
const SCENARIO_FILE_MAX_BYTES = 1024 * 1024;

/** `prompt-insight sim`: the simulated endpoint on 127.0.0.1 until Ctrl-C. */
export async function simCommand(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, {
    valued: ['port', 'ttft-ms', 'prefill-ms-per-token', 'decode-ms-per-token', 'jitter-ms', 'tokens-per-chunk', 'reasoning-tokens', 'output-tokens', 'fault', 'fault-rate', 'seed', 'scenario', 'slots', 'prefix-cache-hit-rate'],
    boolean: [],
  });
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument '${args.positionals[0]}'\nusage: ${SIM_USAGE}`);
  const fault = (stringFlag(args, 'fault') ?? 'none') as SimFault;
  if (!SIM_FAULTS.includes(fault)) throw new UsageError(`--fault must be one of ${SIM_FAULTS.join(', ')}`);
  const scenarioFile = stringFlag(args, 'scenario');
  let scenario;
  if (scenarioFile) {
    try {
      // The user's own argument, so any place is allowed; but a regular file, capped, and a FIFO never blocks.
      scenario = parseScenario((await readUserFile(scenarioFile, SCENARIO_FILE_MAX_BYTES, 'simulator scenarios')).toString('utf8'));
    } catch (error) {
      io.stderr(`prompt-insight sim: ${scenarioFile}: ${describeReadError(error)}\n`);
      return 1;
    }
  }
  const d = DEFAULT_SIM_OPTIONS;
  const sim = await startSim({
    port: numberFlag(args, 'port', { min: 0, max: 65535, integer: true }, 0),
    ttftBaseMs: numberFlag(args, 'ttft-ms', { min: 0 }, d.ttftBaseMs),
    prefillMsPerInputToken: numberFlag(args, 'prefill-ms-per-token', { min: 0 }, d.prefillMsPerInputToken),
    decodeMsPerToken: numberFlag(args, 'decode-ms-per-token', { min: 0 }, d.decodeMsPerToken),
    jitterMs: numberFlag(args, 'jitter-ms', { min: 0 }, d.jitterMs),
    slots: numberFlag(args, 'slots', { min: 0, max: 10_000, integer: true }, d.slots),
    tokensPerChunk: numberFlag(args, 'tokens-per-chunk', { min: 1, integer: true }, d.tokensPerChunk),
    reasoningTokens: numberFlag(args, 'reasoning-tokens', { min: 0, integer: true }, d.reasoningTokens),
    outputTokens: numberFlag(args, 'output-tokens', { min: 1, integer: true }, d.outputTokens),
    fault,
    faultRate: numberFlag(args, 'fault-rate', { min: 0, max: 1 }, d.faultRate),
    seed: numberFlag(args, 'seed', { min: 0, integer: true }, d.seed),
    ...(scenario ? { scenario } : {}),
    ...(args.flags.has('prefix-cache-hit-rate') ? { prefixCacheHitRate: numberFlag(args, 'prefix-cache-hit-rate', { min: 0, max: 1 }) } : {}),
  });
  io.stdout(`Prompt Insight SIMULATED endpoint (not a real model) listening on ${sim.url}\n`);
  const signal = io.interrupted();
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  await sim.close();
  io.stderr(`Simulator stopped after ${sim.served()} requests.\n`);
  return 0;
}
