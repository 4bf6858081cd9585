/**
 * Where the `dotprompt` library (1.1.2, what Genkit for Node renders with) finds front matter. Its
 * rule is stricter than the YAML-fence reading the other formats share (frontMatter.ts): the closing
 * line must be `---` followed by a line break, `...` does not close, and an empty front matter is
 * none. Where it finds none, the library renders the whole file, YAML included, as one template;
 * the product counts what the library sends, so the Dotprompt parser asks this first.
 * (The library does not export its pattern; the oracle test on the real files keeps the two equal.)
 */
const LIBRARY_FRONT_MATTER = /^---\s*(?:\r\n|\r|\n)([\s\S]*?)(?:\r\n|\r|\n)---\s*(?:\r\n|\r|\n)/;

/** True when the library reads front matter from `text` starting at `from`. */
export function dotpromptLibraryReadsFrontMatter(text: string, from: number): boolean {
  const match = LIBRARY_FRONT_MATTER.exec(from === 0 ? text : text.slice(from));
  // The library takes an empty front matter (`---\n---\n`) for none.
  return match !== null && match[1] !== '';
}
