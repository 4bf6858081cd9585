/**
 * The floors of the house, measured from the code's imports (test/fixtures/importGraph.ts): no two
 * folders import each other, no circle of folders, no circle of files inside one folder. The allow-lists
 * below are empty and only ever shrink: a new pair or circle fails, and so does an entry that no longer holds.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { fileWrites } from '../fixtures/fileWrites';
import { circles, circlesInsideFolders, folderEdges, importGraph, mutualPairs } from '../fixtures/importGraph';

const ROOT = resolve(__dirname, '../..');

/** Folder pairs that still import each other (`a ↔ b`, a before b). */
const ALLOWED_PAIRS: readonly string[] = [];

/** Circles of folders still there (each a sorted list of its folders). */
const ALLOWED_FOLDER_CIRCLES: readonly string[][] = [];

/** Circles of files inside one folder still there (each a sorted list of its files). */
const ALLOWED_FILE_CIRCLES: readonly string[][] = [];

/**
 * The floors, bottom first: a folder imports only folders on floors below its own. A new folder takes
 * a floor here; an arrow up (or across one floor) fails. docs/development.md draws the same floors.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['src/core/files', 'src/core/lazyBuiltins', 'src/core/sharedLibraries', 'src/core/workers', 'src/core/stats', 'src/core/endpoint', 'src/core/text', 'src/core/tokens/assembly', 'src/cli/help'],
  ['src/core/metrics', 'src/core/tokens', 'src/extension/shared'],
  ['src/core/rollout', 'src/core/store'],
  ['src/core/formats'],
  ['src/core/history', 'src/core/render', 'src/core/sim'],
  ['src/core/adherence', 'src/core/modelTokens', 'src/core/retrieval'],
  ['src/core', 'src/core/review', 'src/core/run'],
  ['src/core/telemetry', 'src/extension/endpoints'],
  ['src/core/baseline', 'src/core/load', 'src/core/sampling'],
  ['src/core/compare'],
  ['src/core/release'],
  ['src/cli', 'src/protocol'],
  ['src/extension/capacity', 'src/extension/compare', 'src/extension/production', 'src/extension/review', 'src/extension/runs', 'src/server', 'webview'],
  ['src/extension'],
];

const graph = importGraph(ROOT);
const folders = folderEdges(graph);
const key = (members: readonly string[]): string => [...members].sort().join(' · ');

/** What was found beyond the allow-list, and allow-list entries no longer found. */
function against(found: readonly string[], allowed: readonly string[]): { added: string[]; gone: string[] } {
  return { added: found.filter((f) => !allowed.includes(f)), gone: allowed.filter((a) => !found.includes(a)) };
}

describe('the floors of the source (import graph)', () => {
  it('has no new pair of folders importing each other, and every allowed pair still exists', () => {
    const found = mutualPairs(folders).map(([a, b]) => `${a} ↔ ${b}`);
    expect(against(found, ALLOWED_PAIRS)).toEqual({ added: [], gone: [] });
  });

  it('has no new circle of folders, and every allowed circle is still exactly there', () => {
    const found = circles(folders).map(key);
    expect(against(found, ALLOWED_FOLDER_CIRCLES.map(key))).toEqual({ added: [], gone: [] });
  });

  it('has no new circle of files inside a folder, and every allowed one is still exactly there', () => {
    const found = circlesInsideFolders(graph).map(key);
    expect(against(found, ALLOWED_FILE_CIRCLES.map(key))).toEqual({ added: [], gone: [] });
  });

  it('has every folder on a floor, and every arrow pointing down', () => {
    const floorOf = new Map(FLOORS.flatMap((floor, i) => floor.map((folder) => [folder, i] as const)));
    const all = new Set([...folders.keys(), ...[...folders.values()].flatMap((to) => [...to])]);
    expect([...all].filter((folder) => !floorOf.has(folder))).toEqual([]);
    const notDown = [...folders].flatMap(([from, to]) => [...to].filter((t) => t !== from && floorOf.get(t)! >= floorOf.get(from)!).map((t) => `${from} → ${t}`));
    expect(notDown).toEqual([]);
  });

  it('keeps the core engine free of vscode', () => {
    const core = graph.files.filter((f) => f.startsWith('src/core/'));
    expect(core.length).toBeGreaterThan(100);
    const offenders = core.filter((file) => ts.preProcessFile(readFileSync(resolve(ROOT, file), 'utf8'), true, true).importedFiles.some((r) => r.fileName === 'vscode' || r.fileName.startsWith('vscode/')));
    expect(offenders).toEqual([]);
  });
});

describe('writes to the file system (issue 38)', () => {
  const WRITE_MODULE = 'src/core/files/fileWrite.ts';

  it('go through the one write module: no other file of src/ writes, opens for writing or imports a writing node:fs function', () => {
    expect(graph.files).toContain(WRITE_MODULE);
    const offenders = graph.files
      .filter((file) => file !== WRITE_MODULE && !file.startsWith('webview/'))
      .flatMap((file) => fileWrites(readFileSync(resolve(ROOT, file), 'utf8'), file).map((write) => `${file}: ${write}`));
    expect(offenders).toEqual([]);
  });

  it('are found wherever they hide (the scanner the rule above rests on)', () => {
    const planted = [
      "import { appendFile, writeFile } from 'node:fs/promises';",
      "import { renameSync as move } from 'node:fs';",
      "import * as fs from 'fs';",
      "const f = require('node:fs');",
      "openSync(p, constants.O_WRONLY | constants.O_CREAT);",
      "fs.open(p, 'a+', () => {});",
      'await vscode.workspace.fs.writeFile(uri, bytes);',
    ].join('\n');
    expect(fileWrites(planted)).toEqual([
      'appendFile from node:fs/promises (line 1)',
      'writeFile from node:fs/promises (line 1)',
      'renameSync from node:fs (line 2)',
      'namespace import of fs (line 3)',
      "require('node:fs') (line 4)",
      'open flag O_WRONLY (line 5)',
      'open flag O_CREAT (line 5)',
      "open with 'a+' (line 6)",
      'workspace.fs.writeFile (line 7)',
    ]);
    expect(fileWrites("import { readFileSync, openSync, constants } from 'node:fs';\nopenSync(p, constants.O_RDONLY | constants.O_NOFOLLOW);\nopenSync(p, 'r');")).toEqual([]);
  });
});

