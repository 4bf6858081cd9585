/** "What will be sent": a prompt's rendered messages as a Markdown document (no `vscode` here, so it is testable). */
import type { RenderedPrompt } from '../protocol/lsp';
import { fenceFor } from './shared/markdownFence';

export function renderedPromptMarkdown(rendered: RenderedPrompt, fileLabel: string): string {
  const out = [
    `# What will be sent: ${rendered.name}`,
    '',
    `${fileLabel} · ${rendered.model}${rendered.modelFromFile ? '' : ' (default model)'} · ${rendered.encoding} · **${rendered.totalTokens.toLocaleString('en-US')} tokens** with the chat overhead`,
    '',
    'Messages as the prompt\'s runtime renders them with the file\'s sample values; the exact text of each is in its block.',
  ];
  for (const message of rendered.messages) {
    const media = message.mediaParts > 0 ? ` · ${message.mediaParts} media part${message.mediaParts === 1 ? '' : 's'} (not counted)` : '';
    out.push('', `## ${message.role}${message.name ? ` (${message.name})` : ''} · ${message.tokens.toLocaleString('en-US')} tokens · from line ${message.line + 1}${media}`, '');
    const fence = fenceFor(message.content);
    out.push(`${fence}text`, message.content, fence);
  }
  if (rendered.messages.length === 0) out.push('', '_No messages: nothing would be sent._');
  if (rendered.notes.length > 0) out.push('', '## What the count assumes', '', ...rendered.notes.map((note) => `- ${note}`));
  return `${out.join('\n')}\n`;
}
