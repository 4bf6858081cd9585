/** A revision's knowledge figures in words, the same in the CLI, the panel and the report (issue 25). */
import type { HallucinationRate } from './revisionResult';

/** `hallucination 3/40 runs 7.5% [2.6%–19.9%] (+2 undetermined)`: small rates keep a decimal. */
export function hallucinationText(h: Pick<HallucinationRate, 'hallucinated' | 'judged' | 'undetermined' | 'rate' | 'ci95'>): string {
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  const rate = h.rate === null ? 'n/a' : pct(h.rate);
  const ci = h.ci95 ? ` [${pct(h.ci95[0])}–${pct(h.ci95[1])}]` : '';
  return `hallucination ${h.hallucinated}/${h.judged} runs ${rate}${ci}${h.undetermined ? ` (+${h.undetermined} undetermined)` : ''}`;
}
