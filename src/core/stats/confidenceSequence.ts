/**
 * Anytime-valid tests of a share, for "run until decided": a decision looked at after every batch
 * must not become more likely to be wrong because it was looked at often. A confidence sequence
 * (Howard, Ramdas, McAuliffe & Sekhon 2021, "Time-uniform, nonparametric, nonasymptotic confidence
 * sequences", Annals of Statistics 49(2)) holds the true value at every sample size at once with
 * probability ≥ 1 − α, so any rule for when to stop — including "as soon as it is decided" — keeps
 * its error rate.
 *
 * For Bernoulli observations (a run above a latency limit, a run that passes, the head winning a
 * discordant pair) the test statistic is their beta-binomial mixture supermartingale M_t
 * (Howard et al. 2021, §3 and Proposition 7; as the authors' `confseq` library computes it): under
 * the null share p0, P(∃t: M_t ≥ 1/α) ≤ α (Ville's inequality). The one-sided mixture puts its prior
 * on one side only and is a supermartingale for every share on the other side of p0 too, so it tests
 * a one-sided claim ("at most 10% of runs above 30 s"). M_t depends only on the count of events and
 * of trials, so the order the runs arrived in does not matter. The mixture is tuned to be tightest
 * near `tOpt` trials (intrinsic time v = t·p0(1 − p0)).
 */
import { jStat } from 'jstat';

export interface MixtureOptions {
  /** Trials at which the boundary is tightest (default 50). */
  tOpt?: number;
  /** Error level the tuning aims at (default α itself). */
  alphaOpt?: number;
}

const DEFAULT_T_OPT = 50;

/** Best variance of the two-sided normal mixture for intrinsic time v and level α (Howard et al. 2021, eq. 14). */
function twoSidedBestRho(v: number, alpha: number): number {
  return v / (2 * Math.log(1 / alpha) + Math.log(1 + 2 * Math.log(1 / alpha)));
}

function logIncompleteBeta(a: number, b: number, x: number): number {
  const complete = jStat.betaln(a, b);
  return x >= 1 ? complete : Math.log(jStat.ibeta(x, a, b)) + complete;
}

/**
 * log M for centred sum s = Σ(X_i − p0) at intrinsic time v = t·p0(1 − p0), with g = p0 and
 * h = 1 − p0 the observations' range below and above their mean; tuned at vOpt.
 */
export function betaBinomialLogMixture(s: number, v: number, vOpt: number, g: number, h: number, alphaOpt = 0.05, oneSided = true): number {
  const rho = oneSided ? twoSidedBestRho(vOpt, 2 * alphaOpt) : twoSidedBestRho(vOpt, alphaOpt);
  const r = Math.max(rho - g * h, 1e-3 * g * h);
  const x = oneSided ? h / (g + h) : 1;
  const normalizer = logIncompleteBeta(r / (g * (g + h)), r / (h * (g + h)), x);
  return (
    (v / (g * h)) * Math.log(g + h) -
    ((v + h * s) / (h * (g + h))) * Math.log(g) -
    ((v - g * s) / (g * (g + h))) * Math.log(h) +
    logIncompleteBeta((r + v - g * s) / (g * (g + h)), (r + v + h * s) / (h * (g + h)), x) -
    normalizer
  );
}

/**
 * Is the share of events shown to be above p0 (`'above'`) or below it (`'below'`), anytime-valid at
 * level α — one-sided: each side is a separate one-sided test at α. `events` of `trials` so far.
 */
export function anytimeShareSide(events: number, trials: number, p0: number, alpha = 0.05, options: MixtureOptions = {}): 'above' | 'below' | null {
  if (trials <= 0) return null;
  if (p0 <= 0) return events > 0 ? 'above' : null;
  if (p0 >= 1) return events < trials ? 'below' : null;
  if (anytimeExceeds(events, trials, p0, alpha, options)) return 'above';
  if (anytimeExceeds(trials - events, trials, 1 - p0, alpha, options)) return 'below';
  return null;
}

/** One-sided: the events' share is above p0 once the mixture reaches 1/α. */
function anytimeExceeds(events: number, trials: number, p0: number, alpha: number, options: MixtureOptions): boolean {
  return anytimeAbovePValue(events, trials, p0, { alphaOpt: alpha, ...options }) <= alpha;
}

/**
 * The anytime-valid p-value of "the share is at most p0" (one-sided, against a larger share): 1/M,
 * capped at 1. Reading it as significant when ≤ α, at any moment, errs with probability ≤ α.
 */
export function anytimeAbovePValue(events: number, trials: number, p0: number, options: MixtureOptions = {}): number {
  const s = events - trials * p0;
  if (trials <= 0 || s <= 0 || p0 <= 0 || p0 >= 1) return 1;
  const perTrial = p0 * (1 - p0);
  const logM = betaBinomialLogMixture(s, trials * perTrial, (options.tOpt ?? DEFAULT_T_OPT) * perTrial, p0, 1 - p0, options.alphaOpt ?? 0.05, true);
  return Math.min(1, Math.exp(-logM));
}

/**
 * The two-sided anytime-valid test of "the share is p0" (e.g. ½ for the head winning a discordant
 * pair under no difference): which side it is rejected on, if it is. Its p-value is 1/M (capped at 1),
 * valid at the moment it is read whatever came before.
 */
export function anytimeTwoSided(events: number, trials: number, p0: number, alpha = 0.05, options: MixtureOptions = {}): { side: 'above' | 'below' | null; pValue: number } {
  if (trials <= 0) return { side: null, pValue: 1 };
  const perTrial = p0 * (1 - p0);
  const s = events - trials * p0;
  const logM = betaBinomialLogMixture(s, trials * perTrial, (options.tOpt ?? DEFAULT_T_OPT) * perTrial, p0, 1 - p0, options.alphaOpt ?? alpha, false);
  const pValue = Math.min(1, Math.exp(-logM));
  return { side: pValue <= alpha ? (s > 0 ? 'above' : 'below') : null, pValue };
}

/**
 * The two-sided confidence sequence for a Bernoulli share at `trials` (bisection on p, as `confseq`'s
 * bernoulli_confidence_interval): [lower, upper].
 */
export function bernoulliConfidenceSequence(events: number, trials: number, alpha = 0.05, options: MixtureOptions = {}): [number, number] {
  if (trials <= 0) return [0, 1];
  const tOpt = options.tOpt ?? DEFAULT_T_OPT;
  const alphaOpt = options.alphaOpt ?? alpha;
  const threshold = Math.log(1 / alpha);
  const observed = events / trials;
  const excess = (p: number): number => {
    const perTrial = p * (1 - p);
    return betaBinomialLogMixture((observed - p) * trials, perTrial * trials, perTrial * tOpt, p, 1 - p, alphaOpt, false) - threshold;
  };
  const bisect = (lo: number, hi: number, rejectedAtLo: boolean): number => {
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (excess(mid) >= 0 === rejectedAtLo) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  const lower = observed > 0 ? bisect(0, observed, true) : 0;
  const upper = observed < 1 ? bisect(observed, 1, false) : 1;
  return [lower, upper];
}
