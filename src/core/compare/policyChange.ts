/** What the head revision changes in the policy that judges it, and whether the judgement applies it. */
export interface PolicyChange {
  /** What the head changes, in words: `scenario interactive → decision`. */
  text: string;
  /** Whether the judgement applies it. */
  applied: boolean;
  /** Why it is or is not applied. */
  why: string;
}
