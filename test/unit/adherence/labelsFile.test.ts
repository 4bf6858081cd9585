/**
 * Labels files (NAME.labels.jsonl): each line checked against schemas/labels.schema.json; a bad line is
 * a problem with its line number and is left out; the file is read with the workspace rules (issue 40, point 2).
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { labelsPathFor, LABELS_MAX_LINES, parseLabels, readLabelsFileSync } from '../../../src/core/adherence/labelsFile';
import { WorkspaceFileError } from '../../../src/core/files/workspaceFile';

const good = { check: 'single-family only', vars: { city: 'Bellevue, WA' }, answer: '1. Single-family house · $1,150,000', label: 'pass', source: 'HUMAN', author: 'Ada <ada@example.com>', time: '2026-12-06T21:04:05Z' };
const line = (over: Record<string, unknown> = {}, drop: string[] = []): string => JSON.stringify(Object.fromEntries(Object.entries({ ...good, ...over }).filter(([k]) => !drop.includes(k))));

describe('labels files', () => {
  it('sit beside the prompt with its stem, as its tests file does', () => {
    expect(labelsPathFor('/w/homes.prompty')).toBe('/w/homes.labels.jsonl');
    expect(labelsPathFor('/w/homes.prompt.yml')).toBe('/w/homes.labels.jsonl');
    expect(labelsPathFor('/w/greet.prompt.md')).toBe('/w/greet.labels.jsonl');
  });

  it('reads every good line, with its line number; blank lines and CRLF are fine; optional fields are kept', () => {
    const text = [line(), '', line({ label: 'fail', comment: 'lists a townhouse', correction: '1. Single-family house', revision: 'e6a0748' }) + '\r', line({ label: 4.5, source: 'LLM', author: 'gpt-4o-mini @ https://api.openai.com/v1' })].join('\n');
    const { labels, problems } = parseLabels(text, 'homes.labels.jsonl');
    expect(problems).toEqual([]);
    expect(labels.map((l) => [l.line, l.label, l.source])).toEqual([[1, 'pass', 'HUMAN'], [3, 'fail', 'HUMAN'], [4, 4.5, 'LLM']]);
    expect(labels[1]).toMatchObject({ comment: 'lists a townhouse', correction: '1. Single-family house', revision: 'e6a0748' });
  });

  it('a bad line is a problem naming the line and the field, and is left out — never a crash', () => {
    const lines = [
      '{"check": "x", ',
      line({}, ['source']),
      line({ source: 'ROBOT' }),
      line({ time: '2026-12-06 21:04' }),
      line({ vars: ['Bellevue'] }),
      line({ label: true }),
      '[1, 2]',
      line(),
      'x'.repeat(1024 * 1024 + 1),
    ];
    const { labels, problems } = parseLabels(lines.join('\n'), 'homes.labels.jsonl');
    expect(labels.map((l) => l.line)).toEqual([8]);
    expect(problems).toHaveLength(8);
    expect(problems[0]).toMatch(/^homes\.labels\.jsonl:1: not JSON \(.+\); left out$/);
    expect(problems.slice(1)).toEqual([
      "homes.labels.jsonl:2: 'source' is missing; left out",
      "homes.labels.jsonl:3: 'source' must be one of HUMAN, LLM, CODE; left out",
      "homes.labels.jsonl:4: 'time' must be an ISO 8601 time with its zone, e.g. 2026-12-06T21:04:05Z; left out",
      "homes.labels.jsonl:5: 'vars' must be an object; left out",
      "homes.labels.jsonl:6: 'label' must be pass, fail, a category or a number; left out",
      'homes.labels.jsonl:7: the line must be a JSON object; left out',
      'homes.labels.jsonl:9: the line is longer than 1,048,576 characters; left out',
    ]);
  });

  it('reads a bounded number of lines and says how many more were left out', () => {
    const text = `${'\n'.repeat(LABELS_MAX_LINES)}${[line(), line(), line()].join('\n')}`;
    const { labels, problems } = parseLabels(text, 'big.labels.jsonl');
    expect(labels).toEqual([]);
    expect(problems).toEqual(['big.labels.jsonl: only the first 200,000 lines are read; 3 more left out']);
  });

  it('is repository input: none is undefined; a link out of the workspace is refused, never followed', () => {
    const root = mkdtempSync(join(tmpdir(), 'labels-'));
    const workspace = join(root, 'workspace');
    mkdirSync(workspace);
    expect(readLabelsFileSync(join(workspace, 'homes.labels.jsonl'), { workspaceFolders: [workspace] })).toBeUndefined();
    writeFileSync(join(workspace, 'homes.labels.jsonl'), `${line()}\n`);
    expect(readLabelsFileSync(join(workspace, 'homes.labels.jsonl'), { workspaceFolders: [workspace] })!.labels).toHaveLength(1);
    writeFileSync(join(root, 'secret.txt'), `${line({ answer: 'outside' })}\n`);
    symlinkSync(join(root, 'secret.txt'), join(workspace, 'greet.labels.jsonl'));
    expect(() => readLabelsFileSync(join(workspace, 'greet.labels.jsonl'), { workspaceFolders: [workspace] })).toThrow(WorkspaceFileError);
  });
});
