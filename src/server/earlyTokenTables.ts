/**
 * Imported first by main.ts, so it runs before the LSP libraries are loaded: starts loading
 * o200k_base's tables, whose rank file is then read on libuv's thread pool (~5 ms of page faults)
 * while the main thread loads those libraries (~40 ms). The first answer finds it read.
 */
import { loadEncoder } from '../core/tokens/engine';

// A failure is reported by the warm-up after `initialized`, which loads again.
loadEncoder('o200k_base').catch(() => undefined);
