/**
 * Load-test points, kept beside the run store in their own JSON-lines file (`runs.jsonl` →
 * `runs.load.jsonl`), one sealed line per point, keyed like runs by prompt content hash + endpoint +
 * model + parameters. Their own file and record kind, so a store written by an older version reads
 * its runs unchanged and the run schema does not grow a second shape. The same guards as the run
 * store: no writing through links, bounded lines, a schema checked on every read and before every
 * write, only lines sealed by this machine count, secrets scrubbed.
 */
import { randomUUID } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { Schema } from '@cfworker/json-schema';
import type { LoadPoint } from './loadPointRecord';
import type { RunKey } from '../store/runKey';
import { appendSealedRecords, readSealedRecords, type SealedRead } from '../store/sealedLines';
import { checkStorePath } from '../store/storeFile';
import { RUN_KEY_SCHEMA, schemaProblem } from '../store/storedRunSchema';

export const LOAD_RESULTS_VERSION = 1;
/** Requests kept per stored point (every figure can be recomputed from them); a longer point keeps its figures and says how many it left out. */
export const MAX_STORED_REQUESTS = 5000;

export interface StoredLoadPoint {
  v: typeof LOAD_RESULTS_VERSION;
  kind: 'load-point';
  id: string;
  /** One `load` invocation: its points share this id, in `index` order. */
  loadId: string;
  index: number;
  /** ISO time the point was stored. */
  at: string;
  key: RunKey;
  file: string;
  prompt: string;
  endpointName: string;
  simulated: boolean;
  /** The SLOs the attainment was judged against, in words, and the attainment target. */
  slo: string[];
  target: number | null;
  inputs: string;
  point: LoadPoint;
  /** Requests not kept (beyond MAX_STORED_REQUESTS); the figures still cover them. */
  requestsDropped?: number;
}

export type NewLoadPoint = Omit<StoredLoadPoint, 'v' | 'kind' | 'id' | 'at' | 'requestsDropped'> & { at?: string };

/** The load results file that goes with a run store path: `.prompt-insight/runs.jsonl` → `.prompt-insight/runs.load.jsonl`. */
export function loadResultsPath(storePath: string): string {
  return join(dirname(storePath), `${basename(storePath).replace(/\.jsonl$/i, '')}.load.jsonl`);
}

const num: Schema = { type: 'number', minimum: 0, maximum: 1e15 };
const numOrNull: Schema = { type: ['number', 'null'], minimum: 0, maximum: 1e15 };
const share: Schema = { type: ['number', 'null'], minimum: 0, maximum: 1 };
const triple: Schema = { type: 'object', required: ['p50', 'p90', 'p99', 'n'], properties: { p50: numOrNull, p90: numOrNull, p99: numOrNull, n: num } };
const text: Schema = { type: 'string', maxLength: 100_000 };

export const STORED_LOAD_POINT_SCHEMA: Schema = {
  type: 'object',
  required: ['v', 'kind', 'id', 'loadId', 'index', 'at', 'key', 'file', 'prompt', 'endpointName', 'simulated', 'slo', 'target', 'inputs', 'point'],
  properties: {
    v: { const: 1 },
    kind: { const: 'load-point' },
    id: { type: 'string', maxLength: 100 },
    loadId: { type: 'string', maxLength: 100 },
    index: { type: 'integer', minimum: 0, maximum: 10_000 },
    at: { type: 'string', format: 'date-time' },
    key: RUN_KEY_SCHEMA,
    file: text,
    prompt: text,
    endpointName: text,
    simulated: { type: 'boolean' },
    slo: { type: 'array', items: text, maxItems: 100 },
    target: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    inputs: text,
    requestsDropped: { type: 'integer', minimum: 0 },
    point: {
      type: 'object',
      required: ['level', 'label', 'sent', 'failed', 'counted', 'requestsPerSec', 'outputTokensPerSec', 'ttftMs', 'e2eMs', 'tpotMs', 'attainment', 'goodput', 'cache', 'errors', 'requests', 'notes', 'cancelled'],
      properties: {
        level: {
          oneOf: [
            { type: 'object', required: ['kind', 'concurrency'], properties: { kind: { const: 'concurrency' }, concurrency: { type: 'integer', minimum: 1 } } },
            // A rate with no concurrency cap has maxConcurrency Infinity, which JSON writes as null.
            { type: 'object', required: ['kind', 'ratePerSec'], properties: { kind: { const: 'rate' }, ratePerSec: { type: 'number', exclusiveMinimum: 0 }, maxConcurrency: { type: ['integer', 'null'], minimum: 1 } } },
          ],
        },
        label: text,
        sent: num,
        failed: num,
        counted: num,
        requestsPerSec: numOrNull,
        outputTokensPerSec: numOrNull,
        inputTokens: numOrNull,
        outputTokens: numOrNull,
        ttftMs: triple,
        e2eMs: triple,
        tpotMs: triple,
        attainment: { type: 'object', required: ['met', 'total', 'share', 'target'], properties: { met: num, total: num, share, target: share } },
        goodput: { type: 'object', required: ['requestsPerSec', 'outputTokensPerSec'], properties: { requestsPerSec: numOrNull, outputTokensPerSec: numOrNull } },
        cache: { type: 'object', properties: { counters: { type: 'object', required: ['source'], properties: { source: { enum: ['server-counters', 'none'] }, hitRate: share, hits: numOrNull, queries: numOrNull, warm: { type: 'boolean' } } } } },
        errors: { type: 'object', additionalProperties: num },
        notes: { type: 'array', items: text },
        cancelled: { type: 'boolean' },
        requests: {
          type: 'array',
          maxItems: MAX_STORED_REQUESTS,
          items: { type: 'object', required: ['startedAtMs', 'ok', 'meetsSlo'], properties: { startedAtMs: { type: 'number' }, ttftMs: numOrNull, tpotMs: numOrNull, e2eMs: numOrNull, outputTokens: numOrNull, ok: { type: 'boolean' }, error: { type: ['string', 'null'] }, meetsSlo: { type: 'boolean' }, counted: { type: 'boolean' } } },
        },
      },
    },
  },
};

/** Where a record breaks the schema (`#/point/sent: …`), or undefined when it is a stored load point. */
export const storedLoadPointProblem = schemaProblem(() => STORED_LOAD_POINT_SCHEMA);

export class LoadResultsStore {
  constructor(readonly path: string) {}

  check(): void {
    checkStorePath(this.path);
  }

  /** Appends one load test's points (one line each); refuses, before writing, a record that would not read back. */
  /**
   * One invocation's points (a sweep, a search — partial ones too: what was measured is kept) under a
   * fresh load id, in order. Returns what to tell the user; a store that cannot take them is said, not thrown.
   */
  keepPoints(points: readonly LoadPoint[], shared: Omit<NewLoadPoint, 'loadId' | 'index' | 'point'>): { stored: boolean; message: string } {
    if (points.length === 0) return { stored: false, message: 'no load point to store' };
    const loadId = randomUUID();
    try {
      this.append(points.map((point, index) => ({ ...shared, loadId, index, point })));
      return { stored: true, message: `Stored ${points.length} load point${points.length === 1 ? '' : 's'} in ${this.path}` };
    } catch (error) {
      return { stored: false, message: `the points were not stored: ${(error as Error).message}` };
    }
  }

  append(points: NewLoadPoint[]): StoredLoadPoint[] {
    if (points.length === 0) return [];
    const stored = points.map(toStored);
    appendSealedRecords(this.path, stored, storedLoadPointProblem, 'A load point');
    return stored;
  }

  /** `keep` filters points as they are read, so a large store need not fit in memory. */
  read(keep?: (point: StoredLoadPoint) => boolean): SealedRead<StoredLoadPoint> {
    return readSealedRecords<StoredLoadPoint>(this.path, (value) => storedLoadPointProblem(value) === undefined, keep);
  }
}

function toStored(point: NewLoadPoint): StoredLoadPoint {
  const dropped = Math.max(0, point.point.requests.length - MAX_STORED_REQUESTS);
  return {
    v: LOAD_RESULTS_VERSION,
    kind: 'load-point',
    id: randomUUID(),
    ...point,
    at: point.at ?? new Date().toISOString(),
    point: dropped > 0 ? { ...point.point, requests: point.point.requests.slice(0, MAX_STORED_REQUESTS) } : point.point,
    ...(dropped > 0 ? { requestsDropped: dropped } : {}),
  };
}
