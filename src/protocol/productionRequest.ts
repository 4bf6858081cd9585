/**
 * "Prompt Insight: Show Production": the extension asks the language server, which holds the production
 * sources and their cache, for one prompt's Production view.
 */
import { RequestType } from 'vscode-languageserver-protocol';
import type { ProductionView } from '../core/telemetry/productionView';

export interface ProductionViewParams {
  uri: string;
  promptIndex: number;
}

/** null: no prompt there; `problem`: why there are no numbers (no sources, Restricted Mode, still reading). */
export type ProductionViewResult = { view: ProductionView } | { problem: string } | null;

export const productionViewRequest = new RequestType<ProductionViewParams, ProductionViewResult, void>('promptInsight/productionView');

export function isProductionViewParams(value: unknown): value is ProductionViewParams {
  const v = value as Partial<ProductionViewParams> | null;
  return typeof v === 'object' && v !== null && typeof v.uri === 'string' && Number.isInteger(v.promptIndex) && (v.promptIndex as number) >= 0;
}
