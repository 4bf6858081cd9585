/**
 * The wire in a worker thread (socketWorker.ts), seen from the thread that decodes. Times come back
 * on process.hrtime and are moved onto this thread's performance.now(). If the worker cannot start
 * or dies, its open connections are reported closed and later requests use the fallback wire.
 */
import { Worker } from 'node:worker_threads';
import type { ProxySettings } from './proxy';
import type { Wire, WireHandlers } from './wire';

export type WireCommand =
  | { op: 'send'; id: number; url: string; bytes: Uint8Array; mayReuse: boolean }
  | { op: 'keep'; id: number }
  | { op: 'destroy'; id: number }
  | { op: 'proxy'; settings: ProxySettings };
export type WireReport = { ev: 'sent'; id: number; t: number; reused: boolean } | { ev: 'data'; id: number; t: number; chunk: Uint8Array } | { ev: 'closed'; id: number; t: number; code: string | undefined };

/** hrtime (ms) − performance.now(): constant, both count from the same monotonic clock. */
function clockOffset(): number {
  const samples: number[] = [];
  for (let i = 0; i < 7; i++) {
    const before = performance.now();
    const hr = Number(process.hrtime.bigint()) / 1e6;
    const after = performance.now();
    samples.push(hr - (before + after) / 2);
  }
  return samples.sort((a, b) => a - b)[3]!;
}

export function workerWire(script: string, fallback: Wire): Wire {
  const offset = clockOffset();
  const open = new Map<number, WireHandlers>();
  let nextId = 1;
  let worker: Worker | undefined;
  let failed = false;
  let proxy: ProxySettings | undefined;
  const fail = (): void => {
    failed = true;
    const t = performance.now();
    for (const handlers of open.values()) handlers.closed(t, 'ERR_WORKER_EXITED');
    open.clear();
  };
  const start = (): Worker | undefined => {
    try {
      const started = new Worker(script);
      started.on('message', (report: WireReport) => {
        const handlers = open.get(report.id);
        if (!handlers) return;
        const t = report.t - offset;
        if (report.ev === 'data') handlers.data(report.chunk, t);
        else if (report.ev === 'sent') handlers.sent(t, report.reused);
        else {
          open.delete(report.id);
          handlers.closed(t, report.code);
        }
      });
      started.on('error', fail);
      started.on('exit', fail);
      // After the listeners (a 'message' listener refs the port again): idle pooled connections must
      // not keep the process alive; a run in flight is kept alive by its own timeout timer.
      started.unref();
      if (proxy) started.postMessage({ op: 'proxy', settings: proxy } satisfies WireCommand);
      return started;
    } catch {
      failed = true;
      return undefined;
    }
  };
  return {
    configure(settings) {
      proxy = settings;
      fallback.configure(settings);
      if (worker && !failed) worker.postMessage({ op: 'proxy', settings } satisfies WireCommand);
    },
    send(url, bytes, mayReuse, handlers) {
      worker ??= failed ? undefined : start();
      if (!worker || failed) return fallback.send(url, bytes, mayReuse, handlers);
      const id = nextId++;
      const running = worker;
      open.set(id, handlers);
      running.postMessage({ op: 'send', id, url: url.href, bytes, mayReuse } satisfies WireCommand);
      return {
        keep: () => open.delete(id) && running.postMessage({ op: 'keep', id } satisfies WireCommand),
        destroy: () => open.delete(id) && running.postMessage({ op: 'destroy', id } satisfies WireCommand),
      };
    },
  };
}
