/**
 * Running one prompt of a file N times: render it, send it through a transport, build RunRecords,
 * keep them in the store as they finish (nothing lost if the batch is cancelled), summarise.
 * The CLI and the extension both run prompts through here.
 */
import { batchRunner, type BatchOptions } from '../endpoint/batch';
import { runOnce, type RunOutcome } from './runOnce';
import type { ChatTransport } from '../endpoint/transport';
import type { ChatRequest } from '../endpoint/types';
import { parsePromptFile } from '../formats/detect';
import type { Prompt } from '../formats/model';
import { summarizeRuns, summarizeWarmRuns, type RunSummary } from '../metrics/summary';
import type { RunGrounded } from '../metrics/runRecord';
import { hasHistogramPhases, histogramsReadable, phasesFromHistograms, readHistograms, readHistogramsAfter } from '../metrics/histogramPhases';
import { cacheFields, ownMetricsSource, probeServerKind, type CacheMode, type ServerKind } from '../endpoint/serverKind';
import { MetricsSampler, waitForServerIdle, type IdleCheck, type MetricsGap, type MetricsSample, type MetricsSource } from '../endpoint/serverMetrics';
import type { ResultsStore } from '../store/resultsStore';
import { runKeyOf } from '../store/runKey';
import { chatTokenTotal } from '../tokens/chatOverhead';
import { loadEncoder, type TokenEncoder } from '../tokens/engine';
import { modelTokenInfo } from '../tokens/models';
import type { PromptReferences } from '../render/renderWithReferences';
import { renderPromptRequest } from './promptRequest';
import { withCaseTurns, type CaseTurn } from '../adherence/caseTurns';
import { declaredRetrieval, type DeclaredRetrieval } from '../retrieval/retrievalStep';
import { literalQueryInputs, renderRetrievalQuery } from '../retrieval/retrievalQuery';
import { retrieveForRun, withRetrieval, type PlannedRetrieval } from './retrievalRun';

export interface PromptRunPlan {
  /** File path as stored (workspace-relative in the editor). */
  file: string;
  prompt: Prompt;
  request: ChatRequest;
  unresolved: string[];
  inputTokensEstimate: number;
  encoder: TokenEncoder;
  /** The prompt's retrieval step, run before each run (its passages fill an input). */
  retrieval?: PlannedRetrieval;
}

export class PlanError extends Error {}

/** Picks the prompt (by name, else the only/first one) and renders it with its sample inputs. */
export async function planPromptRun(
  file: string,
  text: string,
  options: {
    promptName?: string; promptIndex?: number; modelOverride?: string; endpointModel?: string; vars?: Record<string, unknown>; references?: PromptReferences;
    /** A test case's production turns (adherence/caseTurns.ts): sent after the prompt's instructions in place of its own turns. */
    turns?: readonly CaseTurn[];
    /** The retrieval step to run instead of the one this text declares (compare: the judging revision's, gatePolicy.ts); `{}` for none. */
    retrieval?: DeclaredRetrieval;
  },
): Promise<PromptRunPlan> {
  const doc = parsePromptFile(file, text);
  const errors = doc.diagnostics.filter((d) => d.severity === 'error');
  if (doc.prompts.length === 0) throw new PlanError(errors[0] ? `${file} has no prompt to run: ${errors[0].message}` : `${file} has no prompt to run.`);
  let prompt: Prompt | undefined;
  if (options.promptName !== undefined) {
    prompt = doc.prompts.find((p) => p.name === options.promptName);
    if (!prompt) throw new PlanError(`${file} has no prompt named '${options.promptName}' (it has: ${doc.prompts.map((p) => p.name).join(', ')}).`);
  } else {
    prompt = doc.prompts[options.promptIndex ?? 0];
    if (!prompt) throw new PlanError(`${file} has no prompt #${options.promptIndex}.`);
  }
  if (prompt.messages.length === 0) throw new PlanError(`Prompt '${prompt.name}' has no messages to send.`);
  const declared = options.retrieval ?? declaredRetrieval(text, doc.format === 'github-prompt-yaml');
  if (declared.error) throw new PlanError(`${file}: ${declared.error}`);
  const step = declared.step;
  const model = { ...(options.modelOverride ? { override: options.modelOverride } : {}), ...(options.endpointModel ? { endpointDefault: options.endpointModel } : {}) };
  const render = async (vars: Record<string, unknown>) => {
    const rendered = await renderPromptRequest(text, prompt, vars, model, options.references);
    return options.turns ? { ...rendered, request: { ...rendered.request, messages: withCaseTurns(rendered.request.messages, options.turns) } } : rendered;
  };
  let rendered;
  try {
    rendered = await render(options.vars ?? {});
  } catch (error) {
    throw new PlanError((error as Error).message);
  }
  // The input the retrieval step fills has no value until a run retrieves: not a missing input.
  if (step) rendered = { ...rendered, unresolved: rendered.unresolved.filter((name) => name !== step.into) };
  const encoder = await loadEncoder(modelTokenInfo(rendered.request.model).encoding);
  const inputTokensEstimate = chatTokenTotal(
    rendered.request.messages.map((m) => ({ contentTokens: encoder.count(m.content), roleTokens: encoder.count(m.role), ...(m.name ? { nameTokens: encoder.count(m.name) } : {}) })),
  ).total;
  let retrieval: PlannedRetrieval | undefined;
  if (step) {
    let query: string;
    try {
      query = await renderRetrievalQuery(step, literalQueryInputs(prompt, options.vars ?? {}));
    } catch (error) {
      throw new PlanError(`${file}: ${(error as Error).message}`);
    }
    retrieval = { step, query, vars: options.vars ?? {}, render: async (vars) => (await render(vars)).request };
  }
  return { file, prompt, request: rendered.request, unresolved: rendered.unresolved, inputTokensEstimate, encoder, ...(retrieval ? { retrieval } : {}) };
}

export interface ExecuteOptions extends BatchOptions {
  timeoutMs: number;
  /** Prefix cache: `cold` (default) turns it off per request where the server allows; runs are labelled either way. */
  cache?: CacheMode;
  /** Where to sample the server's metrics during the runs: a Prometheus text URL, or a Prometheus server's API with a selector (default: the server's own /metrics when its kind is known). */
  metricsSource?: MetricsSource;
  /** How long a run waits for a server still busy with a timed-out or cancelled run (default: the run's own timeout, at most 30 s). */
  leftoverWaitMs?: number;
  store?: ResultsStore;
  /** Called as each run finishes, with the runs so far and the index of its job. */
  onRun?: (outcome: RunOutcome, finished: number, jobIndex: number) => void;
  /**
   * Scores a run's answer with its grounded checks, so the run is stored with its verdict. Called
   * once the measured runs are over (a judge on the same server must not load it during them), as
   * many at a time as the batch's concurrency. Each run is stored as it finishes and its record is
   * superseded as its verdict arrives; a scorer that fails (or a process killed first) leaves the
   * run stored without a verdict — never unstored.
   */
  groundedOf?: (outcome: RunOutcome, jobIndex: number) => Promise<RunGrounded | undefined>;
  /** Streaming text of the first run (the one shown in the editor). */
  onFirstRunText?: (delta: string, kind: 'token' | 'reasoning') => void;
  /**
   * Where the first run is, so an editor never sits silent: identifying the server, the request
   * going out, the server's answer (waiting for the first token), the first token.
   */
  onFirstRunStage?: (stage: RunStage) => void;
  revision?: string;
  testCase?: number;
  /**
   * `figures`: each finished run is kept without its answer text and inter-token gaps (a load point
   * at thousands of requests a second keeps only what its figures read; `onRun` still sees it whole).
   */
  keep?: 'whole' | 'figures';
}

export type RunStage = 'identifying-server' | 'sending' | 'waiting' | 'streaming';

export interface ExecutedRuns {
  outcomes: RunOutcome[];
  /** When each run's request started, ms from the batch's start (the clock of serverMetrics). */
  startedAt: number[];
  /** Cold (and unknown) runs. */
  summary: RunSummary;
  /** Runs the server served partly from its prefix cache, apart; null when there were none. */
  summaryWarm: RunSummary | null;
  serverKind: ServerKind;
  /** The server's metrics sampled during the batch (t: ms from the batch's start), and samples that failed. */
  serverMetrics: { source: MetricsSource; samples: MetricsSample[]; gaps: MetricsGap[] } | null;
}

export async function executePromptRuns(transport: ChatTransport, plan: PromptRunPlan, options: ExecuteOptions): Promise<ExecutedRuns> {
  const jobs: RunJob[] = Array.from({ length: options.runs }, () => ({ plan, ...(options.revision ? { revision: options.revision } : {}), ...(options.testCase !== undefined ? { testCase: options.testCase } : {}) }));
  const executed = await executeRunJobs(transport, jobs, { ...options, warmupPlan: plan });
  const records = executed.outcomes.map((o) => o.record);
  return { outcomes: executed.outcomes, startedAt: executed.startedAt, summary: summarizeRuns(records), summaryWarm: summarizeWarmRuns(records), serverKind: executed.serverKind, serverMetrics: executed.serverMetrics };
}

/** One run to make: which prompt, and what it is a run of (kept in the store). */
export interface RunJob {
  plan: PromptRunPlan;
  revision?: string;
  testCase?: number;
}

export interface ExecutedJobs {
  /** In job order (runs that were never started because of a cancel are missing). */
  outcomes: RunOutcome[];
  /** Index of the job each outcome belongs to, and when its request started (ms from the batch's start). */
  jobOf: number[];
  startedAt: number[];
  serverKind: ServerKind;
  serverMetrics: ExecutedRuns['serverMetrics'];
}

/**
 * Runs a list of jobs through one batch: one concurrency, one metrics sampler, one clock. Different
 * prompts may be mixed, in the order given (a comparison interleaves its revisions this way, so
 * they share one time window and load).
 */
export async function executeRunJobs(transport: ChatTransport, jobs: readonly RunJob[], options: Omit<ExecuteOptions, 'runs' | 'revision' | 'testCase'> & { warmupPlan?: PromptRunPlan }): Promise<ExecutedJobs> {
  const simulated = transport.endpoint.simulated === true;
  const mode = options.cache ?? 'cold';
  options.onFirstRunStage?.('identifying-server');
  const serverKind = await serverKindOf(transport.endpoint);
  const configuredMetrics = transport.endpoint.metricsUrl;
  const metricsSource: MetricsSource | undefined =
    options.metricsSource ??
    (configuredMetrics ? { kind: 'text', url: configuredMetrics } : ownMetricsSource(serverKind, transport.endpoint.baseUrl));
  const metricsUrl = metricsSource?.kind === 'text' ? metricsSource.url : undefined;
  const batchStart = performance.now();
  const sampler = metricsSource ? new MetricsSampler(metricsSource, () => performance.now() - batchStart) : undefined;
  sampler?.start();
  // One run at a time: after a timeout or cancel, the next run waits until the server has let go of the old one.
  let leftover: Promise<IdleCheck> | undefined;
  const guardLeftovers = metricsUrl !== undefined && options.concurrency <= 1;
  // vLLM, SGLang and TGI state phases only in their histograms: readable per run when runs are one at a time.
  let phasesFromMetrics = metricsUrl !== undefined && options.concurrency <= 1 && hasHistogramPhases(serverKind);
  const startedAt: number[] = new Array(jobs.length);
  const done: { index: number; outcome: RunOutcome }[] = [];
  // Runs waiting for their grounded verdict before they are stored.
  const toScore: { index: number; outcome: RunOutcome; keep: (grounded?: RunGrounded) => void }[] = [];
  let finished = 0;
  await batchRunner(
    async (index, warmup) => {
      const plan = warmup ? (options.warmupPlan ?? jobs[0]!.plan) : jobs[index]!.plan;
      const check = leftover ? await leftover : undefined;
      leftover = undefined;
      let before = phasesFromMetrics ? await readHistograms(metricsUrl!) : undefined;
      if (before && !histogramsReadable(serverKind, before)) {
        // No request histograms (an older server, or metrics off): not asked again for this batch.
        phasesFromMetrics = false;
        before = undefined;
      }
      if (!warmup) startedAt[index] = performance.now() - batchStart;
      const first = index === 0 && !warmup;
      // RAG: the retrieval step runs before each run, timed apart; its passages are rendered in.
      const retrieved = plan.retrieval ? await retrieveForRun(plan.retrieval, plan.encoder, { ...(options.signal ? { signal: options.signal } : {}), runTimeoutMs: options.timeoutMs }) : undefined;
      if (retrieved && !retrieved.ok) return retrieved.outcome;
      if (first) options.onFirstRunStage?.('sending');
      let outcome = await runOnce(transport, withServerFields(retrieved?.request ?? plan.request, cacheFields(serverKind, mode)), {
        timeoutMs: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        countTokens: (t) => plan.encoder.count(t),
        encoder: plan.encoder,
        inputTokensEstimate: retrieved?.inputTokensEstimate ?? plan.inputTokensEstimate,
        ...(first && options.onFirstRunText ? { onText: options.onFirstRunText } : {}),
        ...(first && options.onFirstRunStage ? { onStage: options.onFirstRunStage } : {}),
      });
      if (retrieved) outcome = withRetrieval(outcome, retrieved.retrievalMs, retrieved.passages);
      if (before && outcome.record.ok && !outcome.record.phases) {
        const after = await readHistogramsAfter(serverKind, metricsUrl!, before);
        const phases = after ? phasesFromHistograms(serverKind, before, after, outcome.record.ttftMs) : null;
        if (phases) outcome = { ...outcome, record: { ...outcome.record, phases } };
      }
      const kind = outcome.record.error?.kind;
      if (guardLeftovers && (kind === 'timeout' || kind === 'cancelled') && !options.signal?.aborted) leftover = waitForServerIdle(metricsUrl!, options.leftoverWaitMs ?? Math.min(LEFTOVER_WAIT_MS, options.timeoutMs), options.signal);
      return check?.busy ? { ...outcome, record: { ...outcome.record, overlappedLeftover: check.busy } } : outcome;
    },
    { ...options, runs: jobs.length, origin: batchStart },
    (outcome, index) => {
      finished++;
      done.push({ index, outcome: options.keep === 'figures' ? { record: { ...outcome.record, itlMs: [] }, text: { answer: '', reasoning: '' } } : outcome });
      const job = jobs[index]!;
      // A run cut short by the user is not a measurement; everything else (errors included) is kept.
      // Stored the moment it finishes (a process killed mid-batch loses nothing measured); a
      // grounded verdict reached after the batch supersedes the record.
      const [stored] = options.store && outcome.record.error?.kind !== 'cancelled'
        ? options.store.append([
            {
              key: runKeyOf(transport.endpoint, job.plan.request, job.plan.retrieval),
              file: job.plan.file,
              prompt: job.plan.prompt.name,
              endpointName: transport.endpoint.name,
              simulated: simulated || outcome.record.simulated === true,
              ...(job.revision ? { revision: job.revision } : {}),
              ...(job.testCase !== undefined ? { testCase: job.testCase } : {}),
              run: outcome.record,
              answer: outcome.text.answer,
            },
          ])
        : [];
      if (stored && options.groundedOf) {
        toScore.push({ index, outcome, keep: (grounded) => {
          if (grounded) options.store!.supersede({ ...stored, run: { ...stored.run, grounded } });
        } });
      }
      options.onRun?.(outcome, finished, index);
    },
  );
  if (options.groundedOf) await scoreThenStore(toScore, options.groundedOf, options.concurrency, options.signal);
  await sampler?.stop();
  done.sort((a, b) => a.index - b.index);
  return {
    outcomes: done.map((d) => d.outcome),
    jobOf: done.map((d) => d.index),
    startedAt: done.map((d) => startedAt[d.index]!),
    serverKind,
    serverMetrics: sampler && metricsSource ? { source: metricsSource, samples: sampler.samples, gaps: sampler.gaps } : null,
  };
}

/** Each stored run given its grounded verdict; left without one when scoring failed or the batch was cancelled meanwhile. */
async function scoreThenStore(
  runs: readonly { index: number; outcome: RunOutcome; keep: (grounded?: RunGrounded) => void }[],
  groundedOf: NonNullable<ExecuteOptions['groundedOf']>,
  concurrency: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) {
      const { index, outcome, keep } = runs[next++]!;
      let grounded: RunGrounded | undefined;
      try {
        grounded = await groundedOf(outcome, index);
      } catch {
        grounded = undefined;
      }
      // A verdict reached while cancelling may be the judge's cancelled call, not a verdict.
      keep(signal?.aborted ? undefined : grounded);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, runs.length)) }, worker));
}

/** The server behind an endpoint: asked for OpenAI-compatible endpoints, known for Ollama's native API. */
async function serverKindOf(endpoint: ChatTransport['endpoint']): Promise<ServerKind> {
  if (endpoint.simulated) return 'unknown';
  if (endpoint.provider === 'ollama') return 'ollama';
  return endpoint.provider === 'openai' ? probeServerKind(endpoint.baseUrl) : 'unknown';
}

/** How long the next run waits for a server still busy with a timed-out or cancelled run. */
const LEFTOVER_WAIT_MS = 30_000;

function withServerFields(request: ChatRequest, fields: Record<string, unknown> | undefined): ChatRequest {
  return fields ? { ...request, serverFields: { ...request.serverFields, ...fields } } : request;
}
