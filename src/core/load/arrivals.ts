/**
 * Open-loop arrival processes for `load --rate R`: the gap before each request, mean 1/R.
 * - constant: every gap exactly 1/R;
 * - poisson: exponential gaps (the default, vLLM `bench serve`'s burstiness 1);
 * - gamma: gamma gaps with shape = burstiness and scale = 1/(R·burstiness), as vLLM's
 *   `--burstiness` — below 1 burstier than Poisson (coefficient of variation 1/√shape), above 1 steadier.
 * Seeded through `random` so a point's schedule is reproducible.
 */
export const ARRIVALS = ['constant', 'poisson', 'gamma'] as const;
export type ArrivalKind = (typeof ARRIVALS)[number];

export interface Arrival {
  kind: ArrivalKind;
  /** Gamma shape; 1 for poisson, ignored for constant. */
  burstiness: number;
}

/** A function giving the next inter-arrival gap in ms. */
export function interArrivalSampler(arrival: Arrival, ratePerSec: number, random: () => number): () => number {
  const meanMs = 1000 / ratePerSec;
  if (arrival.kind === 'constant') return () => meanMs;
  if (arrival.kind === 'poisson' || arrival.burstiness === 1) return () => -Math.log(1 - random()) * meanMs;
  const shape = arrival.burstiness;
  return () => gammaSample(shape, random) * (meanMs / shape);
}

export function arrivalText(arrival: Arrival): string {
  return arrival.kind === 'gamma' ? `gamma arrivals (burstiness ${arrival.burstiness})` : `${arrival.kind} arrivals`;
}

/** Gamma(shape, 1) by Marsaglia and Tsang (2000); shape < 1 through the boost Gamma(shape+1)·U^(1/shape). */
function gammaSample(shape: number, random: () => number): number {
  if (shape < 1) return gammaSample(shape + 1, random) * Math.pow(1 - random(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = standardNormal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** Box–Muller. */
function standardNormal(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
