/**
 * The capacity search's shape from the settings (`promptInsight.capacity.*`), shared by Find Capacity
 * and the compare panel; a value outside its range (settings.json is hand-edited) falls back to the default.
 */
import * as vscode from 'vscode';

export interface CapacitySearchShape {
  requests: number;
  limit: number;
  /** The override; null: each SLO's percentile is its target. */
  attainment: number | null;
}

export const CAPACITY_DEFAULTS: CapacitySearchShape = { requests: 30, limit: 32, attainment: null };

/** `value` when it is a finite number within [min, max], else `fallback`. */
export function within(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : fallback;
}

export function capacitySettings(): CapacitySearchShape {
  const settings = vscode.workspace.getConfiguration('promptInsight.capacity');
  return {
    requests: Math.round(within(settings.get('requestsPerLevel'), 3, 10_000, CAPACITY_DEFAULTS.requests)),
    limit: Math.round(within(settings.get('limit'), 1, 1024, CAPACITY_DEFAULTS.limit)),
    attainment: typeof settings.get('attainment') === 'number' ? within(settings.get('attainment'), 0.01, 1, 0.95) : null,
  };
}
