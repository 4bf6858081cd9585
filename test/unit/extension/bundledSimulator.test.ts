/**
 * The extension's bundled simulated endpoint runs from dist/simulator.js (the simulator alone: the .vsix
 * does not carry the whole CLI). Started as the extension starts it, it answers a streamed chat request.
 */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BundledSimulator } from '../../../src/extension/endpoints/bundledSim';
import { DIST } from '../../fixtures/cli';

const log = { info: () => undefined, warn: () => undefined } as unknown as ConstructorParameters<typeof BundledSimulator>[1];

describe('the bundled simulator', () => {
  it('starts from dist/simulator.js, says its URL on 127.0.0.1 and streams an answer', async () => {
    const simulator = new BundledSimulator(join(DIST, 'simulator.js'), log);
    try {
      const url = await simulator.start(resolve('examples/homes/homes.sim.yaml'));
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sim', stream: true, messages: [{ role: 'user', content: 'find homes nearby' }] }) });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('data: [DONE]');
    } finally {
      simulator.dispose();
    }
  });
});
