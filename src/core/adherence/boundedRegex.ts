/**
 * `regex` assertions on answers, in bounded time. Patterns come from test files in repositories we
 * do not trust, and a backtracking engine takes exponential time on some (`^(a+)+$` against 29 a's
 * and a '!' took 53 s). Patterns RE2 accepts run on RE2JS (RE2's linear-time automaton, ported to
 * JavaScript); the few it cannot run (backreferences, lookaround) run on JavaScript's engine in a
 * worker thread that is stopped at a deadline, which fails the assertion with the reason.
 */
import { Worker } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { awaitWorker } from '../workers/workerDeadline';

export const REGEX_DEADLINE_MS = 1000;

export type RegexOutcome = { matched: boolean; engine: 're2' | 'javascript' } | { error: string };

const compiled = new Map<string, RE2JS | null>();

function re2(pattern: string): RE2JS | null {
  let program = compiled.get(pattern);
  if (program === undefined) {
    try {
      program = RE2JS.compile(pattern);
    } catch {
      program = null;
    }
    compiled.set(pattern, program);
  }
  return program;
}

export async function testRegex(pattern: string, text: string, deadlineMs = REGEX_DEADLINE_MS): Promise<RegexOutcome> {
  try {
    new RegExp(pattern);
  } catch (error) {
    return { error: `the pattern is not a valid regular expression: ${(error as Error).message}` };
  }
  const program = re2(pattern);
  if (program) return { matched: program.matcher(text).find(), engine: 're2' };
  return backtrackingWithDeadline(pattern, text, deadlineMs);
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
parentPort.postMessage(new RegExp(workerData.pattern).test(workerData.text));
`;

async function backtrackingWithDeadline(pattern: string, text: string, deadlineMs: number): Promise<RegexOutcome> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pattern, text }, resourceLimits: { maxOldGenerationSizeMb: 64 } });
  const outcome = await awaitWorker<boolean>(worker, deadlineMs);
  if (outcome.ok) return { matched: outcome.value, engine: 'javascript' };
  if (outcome.reason === 'deadline') return { error: `the pattern did not finish within ${deadlineMs} ms on this answer and was stopped (nested quantifiers such as (a+)+ backtrack exponentially; RE2 syntax without backreferences or lookaround runs in linear time)` };
  return { error: `the pattern failed: ${outcome.message ?? outcome.reason}` };
}
