/**
 * A Node builtin loaded on first use. vscode-languageserver's Node entry requires `child_process`
 * (to resolve global module paths) and vscode-jsonrpc requires `net` (for pipe and socket
 * transports) as they load; a server on stdio uses neither, and loading them costs ~3 ms of its
 * first answer. The server bundle maps those two requires here (esbuild.mjs).
 */
export function lazyBuiltin<T extends object>(load: () => T): T {
  let real: T | undefined;
  const target = (): T => (real ??= load());
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(target(), key),
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      return descriptor ? { ...descriptor, configurable: true } : undefined;
    },
  });
}
