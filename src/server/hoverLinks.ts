/**
 * Links in the hover that open a full view of the prompt under the cursor (its runs, its production
 * numbers): command URIs with the prompt's arguments, for commands the client lets hovers run
 * (HOVER_LINK_COMMANDS). The hover stays a short summary; the detail is one click away.
 */
import { HOVER_LINK_COMMANDS, type PromptCommandArgs } from '../protocol/commands';

export function commandLink(label: string, command: string, args: PromptCommandArgs): string {
  if (!HOVER_LINK_COMMANDS.includes(command)) throw new Error(`${command} is not a command a hover may link to`);
  return `[${label}](command:${command}?${encodeURIComponent(JSON.stringify([args]))})`;
}
