/**
 * "Prompt Insight: Show Production": the extension asks the language server, which holds the production
 * sources and their cache, for one prompt's Production view.
 */
import { RequestType } from 'vscode-languageserver-protocol';
import { isProductionWindow, type ProductionView, type ProductionWindow } from '../core/telemetry/productionView';

export interface ProductionViewParams {
  uri: string;
  promptIndex: number;
  /** The time to show; absent: from shortly before the last version change, at least the sources' `since`. */
  window?: ProductionWindow;
}

/** null: no prompt there; `problem`: why there are no numbers (no sources, Restricted Mode, still reading). */
export type ProductionViewResult = { view: ProductionView } | { problem: string } | null;

export const productionViewRequest = new RequestType<ProductionViewParams, ProductionViewResult, void>('promptInsight/productionView');

export function isProductionViewParams(value: unknown): value is ProductionViewParams {
  const v = value as Partial<ProductionViewParams> | null;
  return typeof v === 'object' && v !== null && typeof v.uri === 'string' && Number.isInteger(v.promptIndex) && (v.promptIndex as number) >= 0 && (v.window === undefined || isProductionWindow(v.window));
}

/** The status bar's question: is an anomaly going on now for a prompt of this file? Answered from the cache only. */
export interface ProductionAlertParams {
  uri: string;
}

export interface ProductionAlert {
  promptIndex: number;
  prompt: string;
  /** "TTFT p99 over baseline". */
  title: string;
  /** The anomaly in words (the page's sentence). */
  detail: string;
}

export const productionAlertRequest = new RequestType<ProductionAlertParams, ProductionAlert | null, void>('promptInsight/productionAlert');

export function isProductionAlertParams(value: unknown): value is ProductionAlertParams {
  const v = value as Partial<ProductionAlertParams> | null;
  return typeof v === 'object' && v !== null && typeof v.uri === 'string';
}
