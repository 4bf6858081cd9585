/**
 * The panel's "capacity under SLO": base's and head's capacity searched on the same endpoint under
 * the judging policy's SLOs (the batch scenario's decision gates on it), each level shown as it
 * starts, the levels kept beside the run store and where said in the log.
 */
import type * as vscode from 'vscode';
import { capacityComparisonLines, hasLatencySlo, withCapacity } from '../../core/compare/capacityCompare';
import { capacitySettings } from '../shared/capacitySettings';

type ComparisonResult = Parameters<typeof withCapacity>[0];
type SearchInput = Omit<Parameters<typeof withCapacity>[1], 'target' | 'limit' | 'requests' | 'onLevel'>;

/** The result with the capacity decision folded in, and the lines the panel shows. */
export async function capacityUnderSlo(result: ComparisonResult, input: SearchInput, progress: (message: string) => void, log: vscode.LogOutputChannel): Promise<{ result: ComparisonResult; capacityLines: string[] }> {
  if (!hasLatencySlo(result.policy)) {
    return { result, capacityLines: [`capacity under SLO: not searched — the ${result.policy.scenario} scenario sets no latency SLO to attain; declare one in the prompt (slo: { ttftMs: { p90: 1000 } })`] };
  }
  const shape = capacitySettings();
  const searched = await withCapacity(result, {
    ...input,
    target: shape.attainment, limit: shape.limit, requests: shape.requests,
    onLevel: (label, concurrency) => progress(`capacity of ${label}: concurrency ${concurrency}, ${shape.requests} requests…`),
  });
  for (const side of [searched.capacity.base, searched.capacity.head]) {
    if (side.kept?.stored) log.info(`Capacity of ${side.label}: ${side.kept.message}`);
    else if (side.kept) log.warn(`Capacity of ${side.label}: ${side.kept.message}`);
  }
  return { result: searched.result, capacityLines: capacityComparisonLines(searched.capacity) };
}
