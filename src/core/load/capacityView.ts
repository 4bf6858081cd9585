/**
 * The JSON view of a load test: what `load --json` prints (with every request) and what the capacity
 * report draws (figures only). One shape for both, so the report shows exactly what the CLI said.
 */
import type { Knee, Saturation } from './knee';
import type { LoadPoint } from './loadPointRecord';

export interface CapacityConclusions {
  maxConcurrencyMeetingSlo?: number;
  atLimit?: boolean;
  resolved?: boolean;
  /** When not resolved: about how many requests per level would resolve it. */
  requestsToResolve?: number | null;
  /** Open loop (--search max-rate): the highest arrival rate within the SLOs, by which arrival process. */
  maxRate?: { ratePerSec: number; arrival: string; resolved: boolean; requestsToResolve: number | null };
  knee: Knee;
  saturation: Saturation;
  stoppedEarly?: string;
}

export interface CapacityInput {
  file: string;
  prompt: string;
  endpoint: string;
  policy: { scenario: string; scenarioSource: string; slo: string[] };
  /** The --attainment override; null: each SLO's percentile is its target. */
  target: number | null;
  requestsPerLevel: number;
  inputs: string;
  points: LoadPoint[];
  capacity: CapacityConclusions;
  cancelled: boolean;
  simulated: boolean;
}

export function capacityView(input: CapacityInput, options: { withRequests: boolean }) {
  return {
    kind: 'capacity' as const,
    ...input,
    points: input.points.map((p) => (options.withRequests ? p : { ...p, requests: [] })),
  };
}

export type CapacityView = ReturnType<typeof capacityView>;

/** A light check of data embedded in a report (the webview reads nothing else). */
export function isCapacityView(value: unknown): value is CapacityView {
  const v = value as Partial<CapacityView> | null;
  return typeof v === 'object' && v !== null && v.kind === 'capacity' && typeof v.prompt === 'string' && Array.isArray(v.points) && v.points.every((p) => typeof p?.label === 'string' && typeof p.attainment === 'object') && typeof v.capacity === 'object';
}
