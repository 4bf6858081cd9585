/**
 * Template engines run in separate processes (isolatedProcess.ts), one per engine group: Jinja2 and
 * Mustache in dist/renderInterpreted.js, started without code generation; Dotprompt (Handlebars
 * compiles to JavaScript) in dist/renderHandlebars.js, started only when a Dotprompt file is
 * rendered. A template from an untrusted repository can loop for minutes, build a gigabyte
 * string, or — through an engine bug — run code: the process has a deadline, a heap limit, a
 * reply-size cap, Node's permission model where the runtime has it, and its own hardening. A
 * process that misses a deadline or dies is stopped and replaced for the next render.
 * Where the bundles are absent (tests from source) engines run in this process.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { engineGroupOf, type EngineAnswer, type EngineGroup, type EngineRequest } from './engineRequest';
import { spawnIsolated, type CallOutcome, type IsolatedProcess, type IsolationReport } from './isolatedProcess';
import { deadlineError, heapError, isTransientRenderError, RENDER_DEADLINE_MS, RENDER_HEAP_MB } from './renderLimits';

export { RENDER_DEADLINE_MS } from './renderLimits';

/** Rendered text is capped at 4M characters (renderLimits.ts); its JSON is at most 6 bytes a character, plus the rest. */
export const MAX_ENGINE_REPLY_BYTES = 32 * 1024 * 1024;

const SCRIPTS: Record<EngineGroup, string> = { interpreted: 'renderInterpreted.js', handlebars: 'renderHandlebars.js' };
const ENGINES: Record<EngineGroup, string> = { interpreted: 'Jinja2 and Mustache templates', handlebars: 'Dotprompt (Handlebars) templates' };

type Log = (message: string) => void;
/** Only the less isolated case is worth a line on a CLI's stderr; the language server logs both (setRenderLog). */
let log: Log = (message) => {
  if (message.includes('WITHOUT')) process.stderr.write(`prompt-insight: ${message}\n`);
};
const reported = new Set<string>();

/** Where the isolation in use is reported (once per engine group and kind of isolation). */
export function setRenderLog(next: Log): void {
  log = next;
}

interface Job {
  request: EngineRequest;
  deadlineMs: number;
  resolve: (answer: EngineAnswer) => void;
}

/** One render process for a group of engines, serving one request at a time. */
class EngineLane {
  private current: IsolatedProcess | undefined;
  private readonly queue: Job[] = [];
  private pumping = false;

  constructor(private readonly group: EngineGroup, private readonly script: string) {}

  render(request: EngineRequest, deadlineMs: number): Promise<EngineAnswer> {
    return new Promise((resolve) => {
      this.queue.push({ request, deadlineMs, resolve });
      void this.pump();
    });
  }

  /** Starts the process ahead of the first render. */
  warm(): Promise<IsolationReport> {
    return this.process().ready;
  }

  private process(): IsolatedProcess {
    if (!this.current || this.current.stopped) {
      const started = spawnIsolated(this.script, { heapMb: RENDER_HEAP_MB, codeGeneration: this.group === 'handlebars', maxReplyBytes: MAX_ENGINE_REPLY_BYTES });
      started.ready.then((report) => reportIsolation(this.group, report), () => undefined);
      this.current = started;
    }
    return this.current;
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (let job = this.queue.shift(); job; job = this.queue.shift()) {
        const process = this.process();
        const outcome = await process.call(job.request, job.deadlineMs);
        // A process that failed a request is not reused: the next render starts a fresh one.
        if (!outcome.ok) process.stop();
        job.resolve(engineAnswerOf(outcome, job.request, job.deadlineMs));
      }
    } finally {
      this.pumping = false;
    }
  }
}

const lanes = new Map<EngineGroup, EngineLane>();

function laneFor(group: EngineGroup): EngineLane | undefined {
  const existing = lanes.get(group);
  if (existing) return existing;
  const script = join(__dirname, SCRIPTS[group]);
  if (!existsSync(script)) return undefined;
  const lane = new EngineLane(group, script);
  lanes.set(group, lane);
  return lane;
}

/**
 * Starts the render process of the interpreting engines now, so the first render of a templated
 * prompt does not wait for a process to start (the language server calls this once trusted).
 * Resolves with the isolation in use; undefined from source (no bundles).
 */
export function warmRenderProcess(): Promise<IsolationReport | undefined> {
  return laneFor('interpreted')?.warm() ?? Promise.resolve(undefined);
}

/** Renders by content and values: an edit elsewhere in the file (or a second request for the same version) renders nothing. */
const CACHE_LIMIT = 64;
const cache = new Map<string, Promise<EngineAnswer>>();

export function renderWithEngine(request: EngineRequest, deadlineMs = RENDER_DEADLINE_MS): Promise<EngineAnswer> {
  const key = createHash('sha256').update(JSON.stringify(request)).digest('base64');
  const cached = cache.get(key);
  if (cached) return cached;
  const answer = renderUncached(request, deadlineMs);
  cache.set(key, answer);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  // A render stopped by a limit or a crash may succeed on a quieter machine: only answers that are not such stay.
  void answer.then((a) => {
    if ('error' in a && isTransientRenderError(a.error)) cache.delete(key);
  });
  return answer;
}

async function renderUncached(request: EngineRequest, deadlineMs: number): Promise<EngineAnswer> {
  const group = engineGroupOf(request);
  const lane = laneFor(group);
  if (!lane) {
    // Bundles carry no engines (they live in the render process bundles); only source runs render in this process.
    if (process.env.PROMPT_INSIGHT_BUNDLED !== '1') return (await import('./inProcessEngine')).runEngine(request);
    return { error: `the template engine could not start: dist/${SCRIPTS[group]} is missing beside the bundle; reinstall the extension` };
  }
  return lane.render(request, deadlineMs);
}

function engineAnswerOf(outcome: CallOutcome, request: EngineRequest, deadlineMs: number): EngineAnswer {
  if (outcome.ok) return readEngineAnswer(outcome.value, request) ?? { error: 'the template engine sent an unreadable answer and was stopped' };
  switch (outcome.kind) {
    case 'deadline':
      return { error: deadlineError(deadlineMs) };
    case 'memory':
      return { error: heapError() };
    case 'oversize':
      return { error: `the template engine's answer (${outcome.detail}) was refused (rendered-size limit)` };
    case 'malformed':
      return { error: `the template engine sent an unreadable answer (${outcome.detail}) and was stopped` };
    case 'start':
      return { error: `the template engine could not start (${outcome.detail})` };
    default:
      return { error: `the template engine stopped unexpectedly (${outcome.detail})` };
  }
}

/** A render process is not trusted either: its answer is used only if it has the expected shape. */
function readEngineAnswer(value: unknown, request: EngineRequest): EngineAnswer | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.error === 'string') return { error: v.error.slice(0, 2000) };
  const missing = Array.isArray(v.missing) && v.missing.every((m) => typeof m === 'string') ? (v.missing as string[]) : undefined;
  if (!missing) return undefined;
  if (request.engine !== 'dotprompt') return typeof v.text === 'string' ? { text: v.text, missing } : undefined;
  if (!Array.isArray(v.messages)) return undefined;
  const messages = [];
  for (const m of v.messages as Record<string, unknown>[]) {
    if (!m || typeof m !== 'object' || typeof m.role !== 'string' || typeof m.text !== 'string' || typeof m.mediaParts !== 'number' || typeof m.history !== 'boolean') return undefined;
    messages.push({ role: m.role, text: m.text, mediaParts: m.mediaParts, history: m.history });
  }
  const uncheckedSchemas = Array.isArray(v.uncheckedSchemas) ? v.uncheckedSchemas.filter((s): s is string => typeof s === 'string').map((s) => s.slice(0, 200)) : [];
  return { messages, ...(typeof v.model === 'string' ? { model: v.model } : {}), missing, ...(uncheckedSchemas.length > 0 ? { uncheckedSchemas } : {}) };
}

function reportIsolation(group: EngineGroup, report: IsolationReport): void {
  const key = `${group}:${report.mode}`;
  if (reported.has(key)) return;
  reported.add(key);
  const routes = report.process.routesLeft.length === 0 ? 'module and network routes removed' : `routes left: ${report.process.routesLeft.join(', ')}`;
  const common = `${routes}, intrinsics frozen, empty environment, ${RENDER_DEADLINE_MS} ms deadline, ${RENDER_HEAP_MB} MB heap${report.process.codeGeneration ? '' : ', code generation from strings off'}`;
  log(
    report.mode === 'permission-model'
      ? `${ENGINES[group]} render in a separate process under Node's permission model (no child processes, workers, addons, file writes; reads only its own script); ${common}.`
      : `${ENGINES[group]} render in a separate process WITHOUT Node's permission model (${report.withoutPermissionBecause ?? 'not available'}); ${common}.`,
  );
}
