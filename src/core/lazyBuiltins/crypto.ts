/**
 * `crypto` for the server and CLI bundles, loaded on first call. Named functions rather than a proxy (see
 * lazyBuiltin.ts) because the bundle's ES imports of a CommonJS module copy its keys as they load,
 * which would load the builtin at once. These are all they use (our modules and vscode-jsonrpc);
 * another named import fails the build.
 */
import type * as Crypto from 'node:crypto';

let real: typeof Crypto | undefined;
const crypto = (): typeof Crypto => (real ??= require('node:crypto') as typeof Crypto);

export const createHash: typeof Crypto.createHash = (...args) => crypto().createHash(...args);
export const createHmac: typeof Crypto.createHmac = (...args) => crypto().createHmac(...args);
export const randomBytes = ((...args: Parameters<typeof Crypto.randomBytes>) => crypto().randomBytes(...args)) as typeof Crypto.randomBytes;
export const randomUUID: typeof Crypto.randomUUID = (...args) => crypto().randomUUID(...args);
export const timingSafeEqual: typeof Crypto.timingSafeEqual = (...args) => crypto().timingSafeEqual(...args);
