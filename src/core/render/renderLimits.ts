/**
 * The limits a render runs under, and the words each one is reported with, so the diagnostic says
 * which limit stopped a template (a 130-byte template doubling a string reached 67M characters).
 */
export const RENDER_DEADLINE_MS = 2000;
/** Heap of a render process (V8 `--max-old-space-size`). */
export const RENDER_HEAP_MB = 256;
/** 4 MB of text: far above any prompt a model takes, far below what exhausts the heap. */
export const MAX_RENDERED_CHARS = 4 * 1024 * 1024;

export function renderedSizeError(): string {
  return `the template's text grew past ${MAX_RENDERED_CHARS.toLocaleString('en-US')} characters (4 MB) and rendering was stopped (rendered-size limit)`;
}

export function deadlineError(deadlineMs: number): string {
  return `the template did not finish rendering within ${deadlineMs} ms and was stopped (time limit)`;
}

export function heapError(): string {
  return `the template used more than ${RENDER_HEAP_MB} MB while rendering and was stopped (memory limit)`;
}

/** Errors that say a limit or a crash stopped the render (a later render of the same input may succeed). */
export function isTransientRenderError(message: string): boolean {
  return /\((time|memory) limit\)|stopped unexpectedly|could not start|was refused|unreadable answer/.test(message);
}
