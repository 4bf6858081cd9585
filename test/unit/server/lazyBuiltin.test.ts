/** The server bundle's stand-ins for `child_process` and `net`: nothing loads until first use, then the real module answers. */
import { describe, expect, it } from 'vitest';
import * as childProcess from 'node:child_process';
import { lazyBuiltin } from '../../../src/core/lazyBuiltins/lazyBuiltin';

describe('lazyBuiltin', () => {
  it('loads on first use, once, and behaves as the module', () => {
    let loads = 0;
    const lazy = lazyBuiltin(() => {
      loads++;
      return childProcess;
    });
    expect(loads).toBe(0);
    expect(lazy.execFileSync(process.execPath, ['-e', 'process.stdout.write("ok")']).toString()).toBe('ok');
    expect('spawn' in lazy).toBe(true);
    expect(Object.keys(lazy)).toContain('spawn');
    expect(loads).toBe(1);
  });
});
