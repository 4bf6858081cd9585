/** The judge endpoint of the settings (`promptInsight.judge.endpoint` / `.model`), for llm-rubric, llm evaluators and grounded checks. */
import * as vscode from 'vscode';
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
