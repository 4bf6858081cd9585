/**
 * OTLP JSON Lines trace files (the OpenTelemetry Collector's file exporter: one `TracesData` per line,
 * optionally gzip-compressed) → production aggregates per prompt version, streamed line by line.
 */
import { readJsonLines } from './importLines';
import type { Readable } from 'node:stream';
import { OtlpReader, type ImportedSpan, type ReaderOptions, type SkipReason, type SpanSink } from './importOtlpSpans';
import { ProdAggregator } from './prodAggregate';
import { commandLineTraceOpener } from './workspaceTraces';

export interface ImportOptions {
  /** Unix ms: spans that ended before are left out (`--since 24h`). */
  sinceMs?: number;
  /** Unix ms: spans that ended after are left out (`--now`, replaying an earlier moment). */
  untilMs?: number;
  maxLineBytes?: number;
  /** Latency values kept per series before sampling (prodAggregate.ts). */
  maxValues?: number;
  signal?: AbortSignal;
  /** Opens a file as a byte stream; default commandLineTraceOpener (whole file, the workspace rules). The editor passes a bounded one. */
  open?: (path: string) => Promise<Readable>;
  /** A second reader of the same spans in the same pass (the editor's per-hour timeline). */
  alsoTo?: SpanSink;
  /** Versions by content for calls that name none (versionResolver.ts). */
  matchContent?: ReaderOptions['matchContent'];
  /** Hand on the messages sent (`sample`). */
  keepContent?: boolean;
  /** Hand on the answers received (production adherence). */
  keepAnswers?: boolean;
  /** With the answers, the passages retrieved before each call in its trace (context checks with a judge). */
  keepRetrievals?: boolean;
}

export interface ImportTotals {
  files: number;
  lines: number;
}

/** Reads every file into one aggregator; a file that cannot be opened is an error with its name. */
export async function importOtlpFiles(paths: readonly string[], options: ImportOptions = {}): Promise<{ aggregate: ProdAggregator; totals: ImportTotals }> {
  const aggregate = new ProdAggregator({ ...(options.sinceMs !== undefined ? { sinceMs: options.sinceMs } : {}), ...(options.untilMs !== undefined ? { untilMs: options.untilMs } : {}), ...(options.maxValues !== undefined ? { maxValues: options.maxValues } : {}) });
  const totals = await readTraceFiles(paths, options.alsoTo ? teeSink(aggregate, options.alsoTo) : aggregate, options);
  return { aggregate, totals };
}

function teeSink(a: SpanSink, b: SpanSink): SpanSink {
  return {
    span: (span: ImportedSpan) => (a.span(span), b.span(span)),
    skip: (reason: SkipReason, source?: Parameters<SpanSink['skip']>[1]) => (a.skip(reason, source), b.skip(reason, source)),
    other: () => (a.other(), b.other()),
  };
}

/** Streams every file's spans into `sink` (any reader of spans: the production aggregate, the baseline's windows). */
export async function readTraceFiles(paths: readonly string[], sink: SpanSink, options: Pick<ImportOptions, 'maxLineBytes' | 'signal' | 'open' | 'matchContent' | 'keepContent' | 'keepAnswers' | 'keepRetrievals'> = {}): Promise<ImportTotals> {
  const totals: ImportTotals = { files: 0, lines: 0 };
  const open = options.open ?? commandLineTraceOpener();
  // One reader over every file: a call's ancestors or log records may be in the next file.
  const reader = new OtlpReader(sink, { ...(options.matchContent ? { matchContent: options.matchContent } : {}), ...(options.keepContent ? { keepContent: true } : {}), ...(options.keepAnswers ? { keepAnswers: true } : {}), ...(options.keepRetrievals ? { keepRetrievals: true } : {}) });
  for (const path of paths) {
    // The opener's own message says what was refused and why (outside the workspace, a FIFO, a device).
    const source = await open(path);
    totals.files++;
    try {
      for await (const event of readJsonLines(source, options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {})) {
        if (options.signal?.aborted) throw new Error('interrupted');
        totals.lines++;
        if (event.kind === 'refused') sink.skip(event.reason);
        else reader.data(event.value);
      }
    } catch (error) {
      source.destroy();
      // A truncated or corrupt gzip stream: what was read counts, the rest is said.
      if ((error as NodeJS.ErrnoException).code?.startsWith('Z_')) {
        sink.skip('corrupt-gzip');
        continue;
      }
      throw error;
    }
  }
  reader.end();
  return totals;
}
