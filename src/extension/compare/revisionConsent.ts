/**
 * What the user has to have seen before revisions are compared, as ▶ Run asks: request parameters
 * that change cost or retention at any chosen revision, and the retrieval step's URL (the first
 * chosen revision's step runs for every revision). A refusal throws, naming what was not confirmed.
 */
import type * as vscode from 'vscode';
import { revisionRequestParams } from '../../core/compare/revisionDeclarations';
import { costAffectingParams } from '../../core/endpoint/costParams';
import { parsePromptFile } from '../../core/formats/detect';
import { confirmCostParams, confirmRetrievalUrl } from '../endpoints/confirmOrigin';
import { CostParamConsent } from '../endpoints/costParamConsent';
import type { EndpointChoice } from '../endpoints/endpoints';
import { RetrievalConsent, retrievalDestination } from '../endpoints/retrievalConsent';

export interface ComparedRevisions {
  /** The prompt file on disk, and as the workspace names it. */
  file: string;
  shownFile: string;
  promptName: string | undefined;
  sources: readonly { text: string; label: string }[];
  retrievalUrl: string | undefined;
}

export async function confirmComparison(state: vscode.Memento, revisions: ComparedRevisions, choice: EndpointChoice): Promise<void> {
  const { file, shownFile, promptName, sources, retrievalUrl } = revisions;
  const consent = new CostParamConsent(state);
  for (const source of sources) {
    for (const found of revisionRequestParams(file, source.text, promptName)) {
      const costly = costAffectingParams(found.params);
      if (!(await consent.check(file, costly, (text) => confirmCostParams(found.name, file, choice.config.name, text)))) throw new Error(`Not run: ${found.name} at ${source.label} sets request parameters that change cost or retention, and they were not confirmed.`);
    }
  }
  if (retrievalUrl && !(await new RetrievalConsent(state).check(shownFile, retrievalUrl, (to) => confirmRetrievalUrl(promptName ?? parsePromptFile(file, sources[0]!.text).prompts[0]?.name ?? shownFile, `${shownFile} at ${sources[0]!.label}`, to)))) {
    throw new Error(`Not run: the retrieval URL ${retrievalDestination(retrievalUrl)} was not confirmed.`);
  }
}
