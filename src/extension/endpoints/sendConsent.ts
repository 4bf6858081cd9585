/**
 * What the user has to have seen before a prompt goes out: its cost- or retention-changing request
 * parameters (not for the bundled simulator, which bills nothing) and its retrieval step's URL.
 * ▶ Run and Find Capacity ask the same questions; the answers are remembered per file (workspace state).
 */
import type * as vscode from 'vscode';
import { costAffectingParams } from '../../core/endpoint/costParams';
import type { PromptRunPlan } from '../../core/run/promptRun';
import { confirmCostParams, confirmRetrievalUrl } from './confirmOrigin';
import { CostParamConsent } from './costParamConsent';
import type { EndpointChoice } from './endpoints';
import { RetrievalConsent } from './retrievalConsent';

/** Whether the plan may be sent to the endpoint: asks what was not agreed to before; false when the user declines. */
export async function consentToSend(state: vscode.Memento, file: string, plan: PromptRunPlan, choice: EndpointChoice): Promise<boolean> {
  const costly = choice.bundledSim ? [] : costAffectingParams(plan.request.params);
  if (!(await new CostParamConsent(state).check(file, costly, (text) => confirmCostParams(plan.prompt.name, file, choice.config.name, text)))) return false;
  // A retrieval step's URL is shown before the first query goes there (retrievalConsent.ts).
  if (plan.retrieval && !(await new RetrievalConsent(state).check(file, plan.retrieval.step.url, (to) => confirmRetrievalUrl(plan.prompt.name, file, to)))) return false;
  return true;
}
