/** The server never dies on input: a handler's failure is logged and answered with its fallback ("nothing"). */

export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error);
}

export type Guarded = <T>(name: string, work: () => Promise<T>, fallback: T) => Promise<T>;

/** Runs handlers so that a throw is logged as "Prompt Insight <name> failed" and the fallback answered. */
export function guardedBy(logError: (message: string) => void): Guarded {
  return async (name, work, fallback) => {
    try {
      return await work();
    } catch (error) {
      logError(`Prompt Insight ${name} failed: ${describeError(error)}`);
      return fallback;
    }
  };
}
