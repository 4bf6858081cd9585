/**
 * A Node builtin loaded on first use. vscode-languageserver's Node entry requires `child_process`
 * (to resolve global module paths) and vscode-jsonrpc requires `net` (for pipe and socket
 * transports) and `crypto` (pipe names) as they load, as do the run and store modules (`crypto`);
 * a server on stdio uses none of them until it runs a prompt, and loading them costs ~9 ms of its
 * first answer. The server bundle maps those requires here, the CLI bundle `crypto` (esbuild.mjs).
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
