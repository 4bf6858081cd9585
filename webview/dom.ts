/** Page elements built from data without HTML strings, with untrusted text's control characters made visible. */

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: { className?: string; text?: string; attrs?: Record<string, string> } = {}, children: Node[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = visibleControls(props.text);
  for (const [k, v] of Object.entries(props.attrs ?? {})) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

/**
 * Test names, authors, subjects and answers come from repositories we do not trust: a bidi override
 * (U+202E) would show "fail" as "liaf" or reorder a row, and other controls hide text. They are
 * shown as their code points instead of taking effect.
 */
export function visibleControls(text: string): string {
  return text.replace(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}
