/**
 * The one wording of a load test's conclusions — capacity under the SLOs, the knee, saturation, an
 * early stop — shared by `load`'s text, the capacity report and the editor's capacity panel, so the
 * three never say it differently.
 */
import type { CapacityConclusions } from './capacityView';

export function capacityConclusionLines(c: CapacityConclusions): string[] {
  const lines: string[] = [];
  if (c.maxConcurrencyMeetingSlo !== undefined) {
    lines.push(
      c.maxConcurrencyMeetingSlo === 0
        ? 'Capacity: even one request at a time does not reach the attainment target.'
        : `Capacity: up to ${c.atLimit ? 'at least ' : ''}${c.maxConcurrencyMeetingSlo} concurrent requests within the SLOs${c.resolved ? '' : ` — not resolved: the levels around it are too close to their targets to settle${c.requestsToResolve ? `; about ${c.requestsToResolve} requests per level would resolve it` : ''}`}.`,
    );
  }
  if (c.maxRate) {
    const r = c.maxRate;
    lines.push(
      r.ratePerSec === 0
        ? `Capacity, open loop: even the lowest rate tried (${r.arrival}) does not reach the attainment target.`
        : `Capacity, open loop: up to ${r.ratePerSec} requests/s (${r.arrival}) within the SLOs${r.resolved ? '' : ` — not resolved${r.requestsToResolve ? `; about ${r.requestsToResolve} requests per level would resolve it` : ''}`}.`,
    );
    if (c.maxConcurrencyMeetingSlo !== undefined) lines.push('Why the two differ: a closed loop sends the next request only when one returns, so no queue grows past its concurrency; open-loop arrivals come whether or not the server kept up, so their bursts queue and lengthen the tail. Plan a user-facing service by the rate.');
  }
  if (c.stoppedEarly) lines.push(`Stopped early: ${c.stoppedEarly}.`);
  const { knee } = c;
  lines.push(knee.concurrency === null ? `Knee: none (${knee.reason}).` : `Knee: at concurrency ${knee.concurrency} throughput stops growing in proportion (${knee.slopeBefore.toFixed(2)} → ${knee.slopeAfter.toFixed(2)} req/s per added request in flight).`);
  const sat = c.saturation;
  lines.push(sat.level === null ? `Saturation: not seen (${sat.reason}).` : `Saturation: from ${sat.level} the server's waiting queue does not drain and TTFT rises.`);
  return lines;
}
