/**
 * The child processes this thread started whose exit it has not yet seen. A child's exit is waited
 * for (reaped) by the event loop of the thread that spawned it: a worker thread that ends while a
 * child of its still runs leaves that child, once it exits, a zombie of the whole process, as nobody
 * is left to wait for it. A worker that may start processes calls `stopOwnChildren()` before it ends.
 */
import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();

/** Called right after each spawn (a failed spawn has no pid and no exit to wait for). */
export function ownChild(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/** Kills every child still running and resolves once each one's exit has been seen (so reaped). */
export async function stopOwnChildren(): Promise<void> {
  await Promise.all(
    [...live].map(
      (child) =>
        new Promise<void>((reaped) => {
          child.once('exit', () => reaped());
          child.ref(); // an idle render process is unreferenced: its exit must still be waited for here
          child.kill('SIGKILL');
        }),
    ),
  );
}
