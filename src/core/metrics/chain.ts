/**
 * The RAG chain of a prompt with a retrieval step in words: retrieval → TTFT → decode (issue 25,
 * "measure the chain"). The figures are the run summary's (summary.ts: chainSummary).
 */
import { formatMs } from './format';
import type { ChainSummary, MetricSummary } from './summary';

/** One line: `RAG chain p50 1.25 s = retrieval 200 ms → TTFT 300 ms → decode 750 ms · p90 …`. */
export function chainLine(chain: ChainSummary): string {
  const at = (p: 'p50' | 'p90' | 'p99'): string | undefined => {
    const total = chain.chainMs[p];
    if (total === null) return undefined;
    const step = (m: MetricSummary): string => (m[p] === null ? 'n/a' : formatMs(m[p]!));
    return `${p} ${formatMs(total)} = retrieval ${step(chain.retrievalMs)} → TTFT ${step(chain.ttftMs)} → decode ${step(chain.decodeMs)}`;
  };
  const parts = (['p50', 'p90', 'p99'] as const).map(at).filter((s): s is string => s !== undefined);
  if (parts.length === 0) return `RAG chain: no run got through retrieval and the model (${chain.runs} retrieval${chain.runs === 1 ? '' : 's'})`;
  return `RAG chain ${parts.join(' · ')} (n ${chain.chainMs.n})`;
}

/** The chain as a Markdown section: one row per step and the chain, p50/p90/p99 (n/a where n cannot support them). */
export function chainMarkdown(chain: ChainSummary): string[] {
  const cell = (v: number | null): string => (v === null ? 'n/a' : formatMs(v));
  const row = (name: string, m: MetricSummary): string => `| ${name} | ${m.n} | ${cell(m.p50)} | ${cell(m.p90)} | ${cell(m.p99)} |`;
  return [
    `### RAG chain: retrieval → TTFT → decode (${chain.runs} retrieval${chain.runs === 1 ? '' : 's'})`,
    '',
    '| step | n | p50 | p90 | p99 |',
    '|---|---:|---:|---:|---:|',
    row('retrieval', chain.retrievalMs),
    row('TTFT', chain.ttftMs),
    row('decode (E2E − TTFT)', chain.decodeMs),
    row('chain (retrieval + E2E)', chain.chainMs),
    '',
    'The chain is each run\'s retrieval + E2E, its percentiles taken over runs (not a sum of the steps\' percentiles).',
  ];
}
