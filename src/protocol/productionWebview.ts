/**
 * Messages between the Production page (webview) and the extension host: one typed definition each,
 * validated on receipt. The page asks for another window and runs the two follow-up commands; the host
 * sends the redrawn view or a short status. Imports nothing from vscode or node.
 */
import { isProductionView, isProductionWindow, type ProductionView, type ProductionWindow } from '../core/telemetry/productionView';

export type ProductionAction = 'sampleIntoTests' | 'decideGrayRelease';

export type ProductionPageToHost =
  | { type: 'productionWindow'; window: ProductionWindow }
  /** `since`/`until`: ISO times of the selected anomaly, or of the window shown. */
  | { type: 'productionAction'; action: ProductionAction; version?: string; since?: string; until?: string };

export type HostToProductionPage = { type: 'productionView'; view: ProductionView } | { type: 'productionStatus'; text: string };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const isIso = (v: unknown) => v === undefined || (typeof v === 'string' && ISO.test(v) && Number.isFinite(Date.parse(v)));

export function isProductionPageToHost(value: unknown): value is ProductionPageToHost {
  const v = value as { type?: unknown; window?: unknown; action?: unknown; version?: unknown; since?: unknown; until?: unknown } | null;
  if (typeof v !== 'object' || v === null) return false;
  if (v.type === 'productionWindow') return isProductionWindow(v.window);
  return (
    v.type === 'productionAction' && (v.action === 'sampleIntoTests' || v.action === 'decideGrayRelease') &&
    (v.version === undefined || (typeof v.version === 'string' && v.version.length > 0 && v.version.length <= 200)) && isIso(v.since) && isIso(v.until)
  );
}

export function isHostToProductionPage(value: unknown): value is HostToProductionPage {
  const v = value as { type?: unknown; view?: unknown; text?: unknown } | null;
  if (typeof v !== 'object' || v === null) return false;
  return (v.type === 'productionView' && isProductionView(v.view)) || (v.type === 'productionStatus' && typeof v.text === 'string');
}
