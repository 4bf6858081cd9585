/** Work started ahead of the first answer, off the start-up path: the encodings' tables and the render process. */
import { warmRenderProcess } from '../core/render/renderer';
import { loadEncoder } from '../core/tokens/engine';
import { describeError } from './serverErrors';

/** cl100k_base (GPT-4 and GPT-3.5 models) waits this long: built at once it held the first CodeLens back ~20 ms. */
const SECOND_ENCODING_DELAY_MS = 300;

/**
 * Loads the tables only: the Unicode split pattern is compiled on the first non-ASCII text (bpe.ts),
 * not for an ASCII prompt's first answer. (Loading only o200k_base was measured too: its edit→hover
 * p95 was no better — 12–21 ms against 10–15 ms — so the memory saving did not buy latency.)
 */
export async function warmEncoders(): Promise<void> {
  await loadEncoder('o200k_base');
  await new Promise((resolve) => setTimeout(resolve, SECOND_ENCODING_DELAY_MS));
  await loadEncoder('cl100k_base');
}

/** Starts the render process ahead of the first templated prompt; its isolation is logged (renderer.ts). */
export function warmRenderer(warn: (message: string) => void): void {
  warmRenderProcess().catch((error) => warn(`The template render process did not start: ${describeError(error)}`));
}
