/** An output channel that never prints a credential: every written text passes `scrubSecrets`. */
import type * as vscode from 'vscode';
import { scrubSecrets } from '../core/endpoint/secrets';

const WRITERS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'append', 'appendLine', 'replace']);

function scrubArgument(value: unknown): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (value instanceof Error) return new Error(scrubSecrets(value.message));
  return value;
}

export function scrubbedLog(channel: vscode.LogOutputChannel): vscode.LogOutputChannel {
  return new Proxy(channel, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (typeof property === 'string' && WRITERS.has(property)) return (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args.map(scrubArgument));
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}
