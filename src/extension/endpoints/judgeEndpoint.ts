/** The judge endpoint of the settings (`promptInsight.judge.endpoint` / `.model`), for llm-rubric, llm evaluators and grounded checks. */
import * as vscode from 'vscode';
import { DEFAULT_TRUST_BAR, type TrustBar } from '../../core/stats/judgeTrust';
import { judgeVerdictStoreBeside, type VerdictStore } from '../../core/store/verdictStore';
import { storePathOf } from '../shared/storePath';
import type { Judge } from '../../core/adherence/score';
import { transportJudge } from '../../core/run/transportJudge';
import type { EndpointTransports } from './endpointTransports';
import { configuredEndpoints, type EndpointChoice } from './endpoints';

export interface JudgeEndpoint {
  name: string;
  choice: EndpointChoice;
  /** The setting's model, else the endpoint's own. */
  model: string;
}

/** Undefined when no judge endpoint is set, it names no configured endpoint, or no model is known. */
export function judgeEndpointOfSettings(warn: (message: string) => void): JudgeEndpoint | undefined {
  const settings = vscode.workspace.getConfiguration('promptInsight');
  const name = settings.get<string>('judge.endpoint')?.trim();
  const choice = name ? configuredEndpoints(warn).find((c) => c.config.name === name) : undefined;
  const model = settings.get<string>('judge.model')?.trim() || choice?.config.model;
  return name && choice && model ? { name, choice, model } : undefined;
}

/** The settings' judge, ready to ask (runs and compare share it); undefined, with a warning, when none is set or it cannot be reached. */
export async function judgeOfSettings(transports: EndpointTransports, warn: (message: string) => void, signal: AbortSignal): Promise<Judge | undefined> {
  const judge = judgeEndpointOfSettings(warn);
  if (!judge) return undefined;
  try {
    return transportJudge(await transports.transportFor(judge.choice), judge.model, vscode.workspace.getConfiguration('promptInsight').get<number>('run.timeoutMs', 60_000), signal);
  } catch (error) {
    warn(`Judge endpoint '${judge.name}' not usable: ${(error as Error).message}`);
    return undefined;
  }
}

/** The trust bar of the settings (`promptInsight.judge.trustMinLowerBound`, `.trustMinLabels`). */
export function trustBarOfSettings(): TrustBar {
  const settings = vscode.workspace.getConfiguration('promptInsight');
  return {
    minLowerBound: settings.get<number>('judge.trustMinLowerBound', DEFAULT_TRUST_BAR.minLowerBound),
    minEach: settings.get<number>('judge.trustMinLabels', DEFAULT_TRUST_BAR.minEach),
  };
}

/**
 * What a decision needs to know whether to trust the settings' judge: the bar, the checks whose judge
 * the user accepts untrusted (`promptInsight.judge.acceptedChecks`), and the judge's verdicts kept in
 * the workspace's storage (sealed to this machine). Undefined when no judge is set.
 */
export function judgeTrustOfSettings(context: vscode.ExtensionContext, signal: AbortSignal): { bar: TrustBar; judgeId: string; accepted: ReadonlySet<string>; store: VerdictStore; signal: AbortSignal } | undefined {
  const judge = judgeEndpointOfSettings(() => undefined);
  if (!judge) return undefined;
  const accepted = vscode.workspace.getConfiguration('promptInsight').get<unknown>('judge.acceptedChecks', []);
  return {
    bar: trustBarOfSettings(),
    judgeId: judgeIdOf(judge),
    accepted: new Set(Array.isArray(accepted) ? accepted.filter((a): a is string => typeof a === 'string') : []),
    store: judgeVerdictStore(context),
    signal,
  };
}

/** The judge by model and endpoint name: its kept verdicts are its own. */
export function judgeIdOf(judge: JudgeEndpoint): string {
  return `${judge.model} at ${judge.name}`;
}

/** The judge's verdicts on labelled answers, kept in the workspace's storage beside its runs. */
export function judgeVerdictStore(context: vscode.ExtensionContext): VerdictStore {
  return judgeVerdictStoreBeside(storePathOf(context));
}
