/**
 * A test case's `turns:` — production's conversation (user and assistant messages) kept by `sample`
 * when its messages cannot be read back as the template's variables. A case runs with the prompt's
 * own instructions (its system and developer messages, rendered as they are now) and these turns in
 * place of its user and assistant messages: a case sampled from an older version tests the current
 * system text, never the one that version sent. A case written by an older `sample` (`messages:`) is
 * read the same way, its system messages left out.
 */
import type { ChatMessage } from '../endpoint/types';

export interface CaseTurn {
  role: string;
  content: string;
}

/** The roles that carry the prompt's instructions rather than a turn of the conversation. */
export const INSTRUCTION_ROLES: ReadonlySet<string> = new Set(['system', 'developer']);

const isTurn = (m: unknown): m is CaseTurn => typeof m === 'object' && m !== null && typeof (m as CaseTurn).role === 'string' && typeof (m as CaseTurn).content === 'string';

/** An older sampled case's `messages:` as turns: its instructions dropped. */
export function turnsOfLegacy(messages: readonly unknown[]): CaseTurn[] {
  return messages.filter(isTurn).filter((m) => !INSTRUCTION_ROLES.has(m.role)).map((m) => ({ role: m.role, content: m.content }));
}

/** `turns:` (or a legacy `messages:`) of a case as written; a problem when it is not a list of {role, content} turns. */
export function readCaseTurns(raw: { turns?: unknown; messages?: unknown }, where: string, problems: string[]): CaseTurn[] | undefined {
  const written = raw.turns ?? raw.messages;
  if (written === undefined) return undefined;
  const field = raw.turns !== undefined ? 'turns' : 'messages';
  // A list that is not {role, content} turns is the tests-file schema's finding (testsFileCheck.ts), said once there.
  if (!Array.isArray(written) || written.length === 0 || !written.every(isTurn)) return undefined;
  const turns = turnsOfLegacy(written);
  if (turns.length === 0) {
    problems.push(`${where}: ${field} has no user or assistant turn; the case is run without them.`);
    return undefined;
  }
  return turns;
}

/**
 * The messages sent for a case with turns: the rendered prompt's instructions before its first turn,
 * the case's turns, then its instructions after its last turn (a closing reminder stays last).
 */
export function withCaseTurns(rendered: readonly ChatMessage[], turns: readonly CaseTurn[]): ChatMessage[] {
  const firstTurn = rendered.findIndex((m) => !INSTRUCTION_ROLES.has(m.role));
  if (firstTurn < 0) return [...rendered, ...turns];
  let lastTurn = rendered.length - 1;
  while (INSTRUCTION_ROLES.has(rendered[lastTurn]!.role)) lastTurn--;
  return [...rendered.slice(0, firstTurn), ...turns.map((t) => ({ role: t.role, content: t.content })), ...rendered.slice(lastTurn + 1)];
}
