/**
 * The knowledge figures of a comparison in the panel and the report (issue 25): each revision's
 * hallucination rate with its Wilson interval (undetermined runs said apart) and, for a prompt with a
 * retrieval step, its RAG chain retrieval → TTFT → decode. Nothing when no revision has either. And
 * `compare --capacity`'s base-against-head capacity lines.
 */
import { hallucinationText } from '../src/core/compare/knowledgeText';
import type { ComparisonView } from '../src/core/compare/view';
import { chainLine } from '../src/core/metrics/chain';
import { el } from './dom';

/** `compare --capacity`: base against head, as the CLI words it; nothing when the comparison has none. */
export function capacitySection(view: ComparisonView): Node | undefined {
  const lines = (view as { capacity?: { lines?: unknown } }).capacity?.lines;
  // The view comes from the host: anything but a list of strings is left out.
  if (!Array.isArray(lines) || lines.length === 0 || !lines.every((l) => typeof l === 'string')) return undefined;
  return el('section', { className: 'capacity-compare', attrs: { 'aria-label': 'capacity under SLO, base against head' } }, [
    el('h3', { text: 'Capacity under SLO' }),
    el('ul', {}, lines.map((line) => el('li', { text: line.trim() }))),
  ]);
}

export function knowledgeSection(view: ComparisonView): Node | undefined {
  const items: Node[] = [];
  for (const r of view.revisions) {
    // The view comes from the host: a field of the wrong shape is left out, not drawn.
    if (r.hallucination && typeof r.hallucination.hallucinated === 'number' && typeof r.hallucination.judged === 'number') items.push(el('li', { className: 'hallucination', text: `${r.label}: ${hallucinationText(r.hallucination)}` }));
    if (r.chain && typeof r.chain.runs === 'number' && r.chain.chainMs && r.chain.retrievalMs) items.push(el('li', { className: 'chain', text: `${r.label}: ${chainLine(r.chain)}` }));
  }
  if (items.length === 0) return undefined;
  return el('section', { className: 'knowledge', attrs: { 'aria-label': 'hallucination and RAG chain per revision' } }, [el('h3', { text: 'Hallucination and RAG chain' }), el('ul', {}, items)]);
}
