import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seeded } from '../../fixtures/propertySeed';
import { SseParser } from '../../../src/core/endpoint/sse';

const encode = (s: string) => new TextEncoder().encode(s);

function parseInPieces(text: string, cuts: number[]) {
  const bytes = encode(text);
  const parser = new SseParser();
  const events = [];
  let from = 0;
  for (const [i, cut] of [...cuts, bytes.length].entries()) {
    events.push(...parser.feed(bytes.subarray(from, cut), i));
    from = cut;
  }
  events.push(...parser.end(99));
  return events.map(({ event, data }) => ({ event, data }));
}

describe('SseParser', () => {
  const stream = ': keep-alive\n\nevent: message_start\ndata: {"a":"中文"}\n\ndata: line1\ndata: line2\r\n\r\ndata:no-space\r\rdata: [DONE]\n\n';
  const expected = [
    { event: 'message_start', data: '{"a":"中文"}' },
    { event: 'message', data: 'line1\nline2' },
    { event: 'message', data: 'no-space' },
    { event: 'message', data: '[DONE]' },
  ];

  it('reads events, comments, multi-line data and every line ending', () => {
    expect(parseInPieces(stream, [])).toEqual(expected);
  });

  it('gives the same events however the bytes are split across reads (UTF-8 and CRLF split included)', () => {
    const length = encode(stream).length;
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: length - 1 }), { maxLength: 12 }), (cuts) => {
        expect(parseInPieces(stream, cuts.sort((a, b) => a - b))).toEqual(expected);
      }),
      seeded(2000),
    );
  });

  it('stamps each event with the read that completed it', () => {
    const parser = new SseParser();
    expect(parser.feed(encode('data: a'), 1)).toEqual([]);
    expect(parser.feed(encode('\n\ndata: b\n\ndata: c\n\n'), 2).map((e) => [e.data, e.t])).toEqual([['a', 2], ['b', 2], ['c', 2]]);
  });

  it('flushes an unterminated last event at the end of the body', () => {
    const parser = new SseParser();
    parser.feed(encode('data: tail'), 1);
    expect(parser.end(5).map((e) => [e.data, e.t])).toEqual([['tail', 5]]);
  });
});
