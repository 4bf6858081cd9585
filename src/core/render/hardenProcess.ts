/**
 * What a render process does to itself once its engines are loaded, before it reads a template:
 * the layer that holds where Node's permission model is absent (a runtime that refuses the flag)
 * and covers what that model does not (network, `process.getBuiltinModule`).
 *
 *  1. Routes from the global scope to Node's modules and to other processes are removed:
 *     `process.getBuiltinModule`, `binding`, `mainModule` (its `require`), `dlopen`, `kill`,
 *     `fetch`, `WebSocket`, the standard streams (their class is a network socket), the console
 *     (it holds them)… Code that gets to run can no longer name a module it could use.
 *  2. The JavaScript intrinsics are frozen (Object.prototype, Array.prototype, Function.prototype,
 *     the error types, iterators…), so prototype pollution fails instead of reaching the next
 *     render. Properties that code commonly assigns on its own objects (`err.name = …`,
 *     `x.toString = …`) keep working through an accessor that defines the property on the object
 *     itself — assigning them on the prototype still fails.
 *
 * The render process captures the pipes it talks on before calling this.
 */

/** Members of `process` that reach modules, native code, the file system or other processes. */
const PROCESS_ROUTES = [
  'getBuiltinModule', 'binding', '_linkedBinding', 'dlopen', 'mainModule', 'kill', '_kill', 'execve',
  '_debugProcess', '_debugEnd', '_startProfilerIdleNotifier', '_stopProfilerIdleNotifier', 'chdir',
  'setuid', 'setgid', 'seteuid', 'setegid', 'setgroups', 'initgroups', 'loadEnvFile', 'openStdin', 'report',
  '_getActiveHandles', '_getActiveRequests', 'getActiveResourcesInfo', 'setUncaughtExceptionCaptureCallback',
  'stdin', 'stdout', 'stderr', 'channel', 'send', 'disconnect',
] as const;
/** Globals that open connections (Node's permission model does not restrict the network). */
const NETWORK_GLOBALS = ['fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest', 'Request', 'Response', 'Headers', 'FormData'] as const;

/** Names code assigns on its own objects, which a frozen prototype's read-only property would refuse (the "override mistake"). */
const OVERRIDABLE = ['constructor', 'toString', 'toLocaleString', 'valueOf', 'name', 'message', 'stack', 'toJSON'] as const;

export interface HardeningReport {
  /** Routes still reachable after removal (expected: none). */
  routesLeft: string[];
  frozen: number;
}

export function hardenProcess(): HardeningReport {
  const routesLeft: string[] = [];
  const proc = process as unknown as Record<string, unknown>;
  for (const name of PROCESS_ROUTES) if (!removeMember(proc, name)) routesLeft.push(`process.${name}`);
  for (const key of Object.keys(process.env)) delete process.env[key];
  const global = globalThis as unknown as Record<string, unknown>;
  for (const name of NETWORK_GLOBALS) if (!removeMember(global, name)) routesLeft.push(name);
  const quiet = Object.freeze(Object.assign(Object.create(null), Object.fromEntries(['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir', 'table', 'assert'].map((m) => [m, () => undefined]))));
  if (!replaceMember(global, 'console', quiet)) routesLeft.push('console');
  return { routesLeft, frozen: freezeIntrinsics() };
}

function removeMember(owner: Record<string, unknown>, name: string): boolean {
  if (!(name in owner)) return true;
  try {
    delete owner[name];
  } catch {
    // non-configurable: overwritten below if writable
  }
  if (!(name in owner) || owner[name] === undefined) return true;
  return replaceMember(owner, name, undefined);
}

function replaceMember(owner: Record<string, unknown>, name: string, value: unknown): boolean {
  try {
    Object.defineProperty(owner, name, { value, writable: false, enumerable: false, configurable: false });
  } catch {
    return false;
  }
  return owner[name] === value;
}

/** The intrinsics named on the global object, and those reachable only through syntax or prototypes. */
function intrinsicRoots(): unknown[] {
  const global = globalThis as unknown as Record<string, unknown>;
  const named = [
    'Object', 'Function', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'BigInt', 'Error', 'EvalError', 'RangeError',
    'ReferenceError', 'SyntaxError', 'TypeError', 'URIError', 'AggregateError', 'RegExp', 'Date', 'Map', 'Set', 'WeakMap',
    'WeakSet', 'WeakRef', 'FinalizationRegistry', 'Promise', 'Proxy', 'Reflect', 'JSON', 'Math', 'Atomics', 'ArrayBuffer',
    'SharedArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
    'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'Float16Array', 'Intl', 'Iterator',
    'WebAssembly',
  ].map((name) => global[name]);
  const proto = Object.getPrototypeOf;
  /* eslint-disable @typescript-eslint/no-empty-function */
  function* generator(): Generator<number> {}
  async function* asyncGenerator(): AsyncGenerator<number> {}
  async function asyncFunction(): Promise<void> {}
  /* eslint-enable @typescript-eslint/no-empty-function */
  const hidden = [
    proto(Int8Array), // %TypedArray%
    proto([][Symbol.iterator]()), proto(proto([][Symbol.iterator]())), // %ArrayIteratorPrototype%, %IteratorPrototype%
    proto(''[Symbol.iterator]()), proto(new Map()[Symbol.iterator]()), proto(new Set()[Symbol.iterator]()),
    proto(/x/[Symbol.matchAll]('')), proto(generator), proto(generator()), proto(asyncGenerator), proto(asyncGenerator()),
    proto(proto(asyncGenerator())), proto(asyncFunction),
  ];
  return [...named, ...hidden].filter((root) => root !== undefined && root !== null);
}

function freezeIntrinsics(): number {
  const seen = new Set<object>();
  const queue: object[] = [];
  const visit = (value: unknown): void => {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) return;
    seen.add(value);
    queue.push(value);
  };
  for (const root of intrinsicRoots()) visit(root);
  // Everything reachable from the roots through prototypes and properties (values and accessors).
  for (let i = 0; i < queue.length; i++) {
    const object = queue[i]!;
    visit(Object.getPrototypeOf(object));
    for (const key of Reflect.ownKeys(object)) {
      const descriptor = Object.getOwnPropertyDescriptor(object, key);
      if (!descriptor) continue;
      visit(descriptor.value);
      visit(descriptor.get);
      visit(descriptor.set);
    }
  }
  // First make the commonly assigned names overridable on derived objects, then freeze.
  for (const object of queue) for (const name of OVERRIDABLE) allowOverrideOnDerived(object, name);
  for (const object of queue) Object.freeze(object);
  // The accessors made above are intrinsics now too.
  for (const object of queue) {
    for (const name of OVERRIDABLE) {
      const descriptor = Object.getOwnPropertyDescriptor(object, name);
      if (descriptor?.get) Object.freeze(descriptor.get);
      if (descriptor?.set) Object.freeze(descriptor.set);
    }
  }
  return queue.length;
}

/** A writable data property on a prototype becomes an accessor: reading gives the value; assigning on a derived object defines it there; on the prototype it fails. */
function allowOverrideOnDerived(prototype: object, name: string): void {
  const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
  if (!descriptor || !('value' in descriptor) || !descriptor.writable || !descriptor.configurable) return;
  const value: unknown = descriptor.value;
  Object.defineProperty(prototype, name, {
    get: function getIntrinsic(): unknown {
      return value;
    },
    set: function setOnDerived(this: unknown, next: unknown): void {
      if (this === prototype) throw new TypeError(`Cannot assign to read only property '${name}' of a frozen intrinsic`);
      if (this === null || (typeof this !== 'object' && typeof this !== 'function')) return;
      Object.defineProperty(this, name, { value: next, writable: true, enumerable: true, configurable: true });
    },
    enumerable: descriptor.enumerable ?? false,
    configurable: false,
  });
}
