/** What the head revision changes in the policy that judges it, and whether the judgement applies it. */
export interface PolicyChange {
  /** What the head changes, in words: `scenario interactive → decision`. */
  text: string;
  /** Whether the judgement applies it. */
  applied: boolean;
  /** Why it is or is not applied. */
  why: string;
  /** The change counted by kind, for the one-line summary (judgedWithLine); none for a change that cannot be read. */
  effects?: PolicyEffects;
}

export type PolicyEffect = 'case added' | 'case changed' | 'case removed' | 'SLO added' | 'SLO tightened' | 'SLO loosened' | 'SLO removed' | 'scenario changed' | 'retrieval step changed';
export type PolicyEffects = Partial<Record<PolicyEffect, number>>;

/** How the judging revision's switch is named where the result is read: the CLI's flag, the panel's choice. */
export interface PolicyWording {
  /** Why a change of the head is not applied when the base judges. */
  notApplied: string;
  /** Why a change of the head is applied when the head judges. */
  viaHead: string;
}

export const CLI_POLICY_WORDING: PolicyWording = {
  notApplied: `not applied: the base revision's policy judges the change (--policy head applies it)`,
  viaHead: 'applied: --policy head',
};

export const PANEL_POLICY_WORDING: PolicyWording = {
  notApplied: `not applied: the base's tests judge this change (choose "Judge with: head's tests" to apply it)`,
  viaHead: "applied: judged with the head's tests",
};

const ORDER: readonly PolicyEffect[] = ['case added', 'case changed', 'case removed', 'SLO added', 'SLO tightened', 'SLO loosened', 'SLO removed', 'scenario changed', 'retrieval step changed'];

/** `5 cases added`, `1 SLO tightened`, `scenario changed`. */
function effectText(effect: PolicyEffect, count: number): string {
  if (effect === 'scenario changed' || effect === 'retrieval step changed') return effect;
  const [noun, verb] = effect.split(' ') as [string, string];
  return `${count} ${count === 1 ? noun : `${noun}s`} ${verb}`;
}

function summed(changes: readonly PolicyChange[]): string[] {
  const totals = new Map<PolicyEffect, number>();
  for (const change of changes) for (const [effect, count] of Object.entries(change.effects ?? {}) as [PolicyEffect, number][]) totals.set(effect, (totals.get(effect) ?? 0) + count);
  return ORDER.filter((e) => (totals.get(e) ?? 0) > 0).map((e) => effectText(e, totals.get(e)!));
}

/**
 * The judging policy and what it took from the head, in one line the result shows:
 * `Judged with the head's tests: 5 cases added, 1 SLO tightened`;
 * `Judged with the base's tests, plus the head's 1 SLO tightened; not applied: 5 cases added`.
 */
export function judgedWithLine(origin: 'base' | 'head', changes: readonly PolicyChange[]): string {
  const applied = summed(changes.filter((c) => c.applied));
  const left = summed(changes.filter((c) => !c.applied));
  let line = `Judged with the ${origin}'s tests`;
  if (applied.length > 0) line += origin === 'head' ? `: ${applied.join(', ')}` : `, plus the head's ${applied.join(', ')}`;
  if (left.length > 0) line += `; not applied: ${left.join(', ')}`;
  return line;
}
