/**
 * The floors of the house, measured from the code's imports (test/fixtures/importGraph.ts): no two
 * folders import each other, no circle of folders, no circle of files inside one folder — except
 * what is listed below, which is what is left to untangle. The lists only shrink: a new pair or
 * circle fails, and so does an entry that no longer holds (remove it when you untangle it).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { circles, circlesInsideFolders, folderEdges, importGraph, mutualPairs } from '../fixtures/importGraph';

const ROOT = resolve(__dirname, '../..');

/** Folder pairs that still import each other (`a ↔ b`, a before b). */
const ALLOWED_PAIRS: readonly string[] = [
  // production: the seasonal baseline reads telemetry's series, telemetry's timeline uses the baseline.
  'src/core/baseline ↔ src/core/telemetry',
  // production: the editor's production view types live in telemetry, its settings in protocol.
  'src/core/telemetry ↔ src/protocol',
];

/** Circles of folders still there (each a sorted list of its folders). */
const ALLOWED_FOLDER_CIRCLES: readonly string[][] = [
  // Through telemetry ↔ protocol: protocol → compare/view, compare → load (capacity compare),
  // load → telemetry (Prometheus instant query), baseline ↔ telemetry.
  ['src/core/baseline', 'src/core/compare', 'src/core/load', 'src/core/telemetry', 'src/protocol'],
];

/** Circles of files inside one folder still there (each a sorted list of its files). */
const ALLOWED_FILE_CIRCLES: readonly string[][] = [
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

  it('keeps the core engine free of vscode', () => {
    const core = graph.files.filter((f) => f.startsWith('src/core/'));
    expect(core.length).toBeGreaterThan(100);
    const offenders = core.filter((file) => ts.preProcessFile(readFileSync(resolve(ROOT, file), 'utf8'), true, true).importedFiles.some((r) => r.fileName === 'vscode' || r.fileName.startsWith('vscode/')));
    expect(offenders).toEqual([]);
  });
});
