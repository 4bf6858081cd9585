import type { PromptAnalysis } from '../core/analysis';
export { countLabel as encodingNote } from '../core/modelTokens/countLabel';

/**
 * Number formatting shared by hover, CodeLens and symbols so they always agree: "1,284". Written out
 * rather than toLocaleString, whose first call loads ICU data (21 ms of the server's first CodeLens).
 */
export function formatTokens(count: number): string {
  const digits = String(Math.trunc(Math.abs(count)));
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return count < 0 ? `-${grouped}` : grouped;
}

/** "1,284" for exact counts, "≈1,284" for estimates. */
export function formatCount(count: number, exact: boolean): string {
  return `${exact ? '' : '≈'}${formatTokens(count)}`;
}

export function contextNote(analysis: PromptAnalysis): string | undefined {
  if (analysis.contextShare === undefined || !analysis.model.contextWindowTokens) return undefined;
  const percent = analysis.contextShare * 100;
  const shown = percent < 0.1 ? '<0.1' : percent < 10 ? percent.toFixed(1) : percent.toFixed(0);
  return `${shown}% of the ${formatTokens(analysis.model.contextWindowTokens)}-token context window`;
}
