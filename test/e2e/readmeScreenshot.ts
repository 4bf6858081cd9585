/**
 * README screenshots come from the end-to-end tests, of the current build. A screenshot in media/
 * has a sidecar (`NAME.json`) with what it shows: the panel's decision, its reasons and the
 * run-until-decided line, with revision ids and numbers masked (the runs are random; the structure
 * and the words are not). The test compares the panel it just drove with the sidecar and fails when
 * they differ — the README would show something the product no longer shows. `UPDATE_SCREENSHOTS=1`
 * writes the new screenshot and sidecar into media/ instead.
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { ARTIFACTS } from './workbench';

export interface ShownState {
  decision: string;
  reasons: string[];
  untilDecided: string | null;
}

/** Revision ids → REV, numbers (with sign and decimals; not inside names such as e2eMs or p90) → N, `p = N`/`p < N` → p N. */
export function masked(text: string): string {
  return text
    .replace(/\b[0-9a-f]{7,40}\b/g, 'REV')
    .replace(/p [<=] /g, 'p ')
    .replace(/(?<![A-Za-z\d.])[+-]?\d[\d,]*(\.\d+)?(?![A-Za-z\d])/g, 'N')
    .replace(/\s+/g, ' ')
    .trim();
}

export async function checkReadmeScreenshot(name: string, shown: ShownState, capture: (path: string) => Promise<unknown>): Promise<void> {
  const artifact = `${ARTIFACTS}/${name}.png`;
  await capture(artifact);
  const state: ShownState = { decision: masked(shown.decision), reasons: shown.reasons.map(masked), untilDecided: shown.untilDecided === null ? null : masked(shown.untilDecided) };
  const sidecar = `media/${name}.json`;
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    copyFileSync(artifact, `media/${name}.png`);
    writeFileSync(sidecar, `${JSON.stringify({ note: 'What media/' + name + '.png shows, numbers and revision ids masked; written by the end-to-end tests with UPDATE_SCREENSHOTS=1.', state }, null, 2)}\n`);
    return;
  }
  expect(existsSync(sidecar), `${sidecar} is missing: run the end-to-end tests with UPDATE_SCREENSHOTS=1`).toBe(true);
  const recorded = (JSON.parse(readFileSync(sidecar, 'utf8')) as { state: ShownState }).state;
  expect(state, `media/${name}.png no longer shows what the panel shows (the new one is ${artifact}): run the end-to-end tests with UPDATE_SCREENSHOTS=1 to refresh it`).toEqual(recorded);
}
