/** Messages between processes are validated on receipt: malformed ones are refused. */
import { describe, expect, it } from 'vitest';
import { isRunsChangedParams, isTokenSummaryParams, readServerInitOptions, readServerSettings } from '../../../src/protocol/lsp';
import { isHostToWebview, isWebviewToHost } from '../../../src/protocol/webview';
import { isCompareCommandArgs } from '../../../src/protocol/commands';
import { comparisonView } from '../../../src/core/compare/view';
import { syntheticComparison } from '../../fixtures/syntheticComparison';

describe('webview → host', () => {
  it.each([
    [{ type: 'ready' }, true],
    [{ type: 'cancel' }, true],
    [{ type: 'compare', revs: ['working', 'a'.repeat(40)], runs: 10, fresh: false }, true],
    [{ type: 'compare', revs: ['working'], runs: 10, fresh: false }, false],
    [{ type: 'compare', revs: ['working', '--output=/tmp/x'], runs: 10, fresh: false }, false],
    [{ type: 'compare', revs: ['working', 'HEAD; rm -rf /'], runs: 10, fresh: false }, false],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 0, fresh: false }, false],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 1e9, fresh: false }, false],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 2.5, fresh: false }, false],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 2, fresh: 'yes' }, false],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 2, fresh: false, capacity: true }, true],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 2, fresh: false, capacity: 1 }, false],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 10, fresh: false, untilDecided: { maxRuns: 200 } }, true],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 10, fresh: false, untilDecided: { maxRuns: 0 } }, false],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 10, fresh: false, untilDecided: { maxRuns: 1e9 } }, false],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 10, fresh: false, untilDecided: true }, false],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 10, fresh: false, policy: 'head' }, true],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 10, fresh: false, policy: 'base' }, true],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 10, fresh: false, policy: 'pr' }, false],
    [{ type: 'compare', revs: ['working', 'buffer'], runs: 10, fresh: false, policy: null }, false],
    [{ type: 'run-shell', command: 'x' }, false],
    [null, false],
    ['ready', false],
  ])('%j → %s', (message, ok) => expect(isWebviewToHost(message)).toBe(ok));
});

describe('host → webview', () => {
  it('accepts the typed messages and refuses others', () => {
    expect(isHostToWebview({ type: 'result', result: comparisonView(syntheticComparison(2, 20)) })).toBe(true);
    expect(isHostToWebview({ type: 'progress', done: 1, total: 4, message: 'x' })).toBe(true);
    expect(isHostToWebview({ type: 'history', file: 'f', prompt: 'p', revisions: [{ rev: 'working', label: 'working copy', path: 'f' }] })).toBe(true);
    const history = { type: 'history', file: 'f', prompt: 'p', revisions: [{ rev: 'working', label: 'working copy', path: 'f' }] };
    expect(isHostToWebview({ ...history, preselected: ['working', 'a'.repeat(40)], judgeWith: 'head' })).toBe(true);
    expect(isHostToWebview({ ...history, preselected: 'working' })).toBe(false);
    expect(isHostToWebview({ ...history, judgeWith: 'everyone' })).toBe(false);
    expect(isHostToWebview({ type: 'result', result: { revisions: 'no' } })).toBe(false);
    expect(isHostToWebview({ type: 'progress', done: '1', total: 4, message: 'x' })).toBe(false);
    const running = { batch: 2, runsPerCase: 15, runsSpent: 30, decision: 'insufficient', reason: 'SLO … not established' };
    expect(isHostToWebview({ type: 'progress', done: 0, total: 0, message: 'x', running })).toBe(true);
    expect(isHostToWebview({ type: 'progress', done: 0, total: 0, message: 'x', running: { ...running, runsSpent: '30' } })).toBe(false);
    expect(isHostToWebview({ type: 'eval', code: 'alert(1)' })).toBe(false);
  });
});

describe('the compare command’s argument', () => {
  it.each([
    [{ uri: 'file:///w/a.prompty', promptName: 'a', promptIndex: 0 }, true],
    [{ uri: 'file:///w/a.prompty' }, true],
    [{ uri: 'file:///w/a.prompty', policy: 'head' }, true],
    [{ uri: 'file:///w/a.prompty', policy: 'base' }, true],
    [{ uri: 'file:///w/a.prompty', policy: 'main' }, false],
    [{ uri: 'file:///w/a.prompty', promptName: 3 }, false],
    [{ policy: 'head' }, false],
    [undefined, false],
  ])('%j → %s', (args, ok) => expect(isCompareCommandArgs(args)).toBe(ok));
});

describe('LSP custom messages and settings', () => {
  it('validates params and reads settings defensively', () => {
    expect(isRunsChangedParams({ storePath: '/tmp/runs.jsonl' })).toBe(true);
    expect(isRunsChangedParams({ storePath: '' })).toBe(false);
    expect(isTokenSummaryParams({ uri: 'file:///a', position: { line: 0, character: 0 }, selections: [] })).toBe(true);
    expect(isTokenSummaryParams({ uri: 'file:///a', position: { line: -1, character: 0 }, selections: [] })).toBe(false);
    expect(readServerSettings({ run: { repeats: 0 }, tokens: { budget: 'x' } })).toEqual({ tokens: { defaultModel: 'gpt-4o', budget: 0, tokenizers: [] }, run: { repeats: 10 }, partialFolders: [], production: { sources: [], problems: [] } });
    // Production sources: malformed entries dropped and said, never passed on.
    const production = readServerSettings({ production: { sources: [{ traces: 'prod/*.jsonl' }, { prometheus: 7 }, 'x'] } }).production;
    expect(production.sources.length).toBe(1);
    expect(production.problems.length).toBeGreaterThanOrEqual(1);
    // Partial folders: absolute paths only (a relative one would depend on the server's working directory).
    expect(readServerSettings({ render: { partialFolders: ['/shared/partials', 'relative', 7] } }).partialFolders).toEqual(['/shared/partials']);
    expect(readServerSettings({ run: { repeats: 25 } }).run.repeats).toBe(25);
    // Tokenizer folders: absolute only; an untagged settings object is the workspace's (read only inside it); the endpoint ▶ Run uses.
    const tokens = readServerSettings({
      tokens: { tokenizers: [{ pattern: 'qwen*', path: '/models/qwen', origin: 'user' }, { pattern: 'x', path: 'relative', origin: 'user' }, { pattern: 'y', path: '/y', origin: 'root' }] },
      endpoints: [{ name: 'a', provider: 'anthropic', baseUrl: 'https://a' }, { name: 'b', baseUrl: 'http://127.0.0.1:8080/v1' }],
      run: { endpoint: 'b' },
    }).tokens;
    expect(tokens).toMatchObject({ tokenizers: [{ pattern: 'qwen*', path: '/models/qwen', origin: 'user' }, { pattern: 'y', path: '/y', origin: 'workspace' }], tokenizeEndpoint: 'http://127.0.0.1:8080/v1' });
    expect(readServerSettings({ tokens: { tokenizers: { 'llama*': '/m/llama' } } }).tokens.tokenizers).toEqual([{ pattern: 'llama*', path: '/m/llama', origin: 'workspace' }]);
    expect(readServerInitOptions({ storePath: 42, workspaceFolders: ['/w', 7] })).toEqual({ settings: undefined, workspaceTrusted: false, workspaceFolders: ['/w'] }); // untrusted unless the client says so
  });
});
