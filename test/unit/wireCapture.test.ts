/** The benchmark's wire reference: pairs each marked request with its first content-token packet in a pcap. */
import { describe, expect, it } from 'vitest';
import { wireTtfts } from '../../bench/wireCapture';

const SERVER = 8080;

/** One Ethernet/IPv4/TCP packet at `ms` (nanosecond pcap record). */
function packet(ms: number, from: number, to: number, payload: string): Buffer {
  const data = Buffer.from(payload, 'latin1');
  const tcp = Buffer.alloc(20);
  tcp.writeUInt16BE(from, 0);
  tcp.writeUInt16BE(to, 2);
  tcp[12] = 5 << 4;
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + 20 + data.length, 2);
  ip[9] = 6;
  const ethernet = Buffer.alloc(14);
  ethernet.writeUInt16BE(0x0800, 12);
  const frame = Buffer.concat([ethernet, ip, tcp, data]);
  const header = Buffer.alloc(16);
  header.writeUInt32LE(1_700_000_000 + Math.floor(ms / 1000), 0);
  header.writeUInt32LE(Math.round((ms % 1000) * 1e6), 4);
  header.writeUInt32LE(frame.length, 8);
  header.writeUInt32LE(frame.length, 12);
  return Buffer.concat([header, frame]);
}

function pcap(packets: Buffer[]): Buffer {
  const global = Buffer.alloc(24);
  global.writeUInt32LE(0xa1b23c4d, 0);
  global.writeUInt32LE(1, 20);
  return Buffer.concat([global, ...packets]);
}

const token = (text: string): string => `data: {"choices":[{"index":0,"delta":{"content":"${text}"}}]}\n\n`;

describe('wireTtfts', () => {
  it('measures from the request packet to the first content token on the same connection, skipping the role-only chunk', () => {
    const capture = pcap([
      packet(10.0, 50001, SERVER, 'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n\r\n'),
      packet(10.1, 50001, SERVER, '{"messages":[{"content":"hi pi-wire-7"}]}'), // body in its own segment
      packet(10.2, 50002, SERVER, 'POST /v1/chat/completions HTTP/1.1\r\n\r\n{"content":"pi-wire-8"}'),
      packet(110.0, SERVER, 50001, 'HTTP/1.1 200 OK\r\n\r\ndata: {"choices":[{"delta":{"role":"assistant","content":""}}]}\n\n'),
      packet(110.5, SERVER, 50002, token('Simulated')),
      packet(111.0, SERVER, 50001, token('Simulated')),
      packet(116.0, SERVER, 50001, token(' homes')),
      // the next request on connection 50001 starts its own measurement
      packet(1200.25, 50001, SERVER, 'POST /v1/chat/completions HTTP/1.1\r\n\r\n{"content":"pi-wire-9"}'),
      packet(1300.5, SERVER, 50001, token('Simulated')),
    ]);
    const ttfts = wireTtfts(capture, SERVER);
    expect([...ttfts.keys()].sort()).toEqual(['pi-wire-7', 'pi-wire-8', 'pi-wire-9']);
    expect(ttfts.get('pi-wire-7')).toBeCloseTo(101.0, 6);
    expect(ttfts.get('pi-wire-8')).toBeCloseTo(100.3, 6);
    expect(ttfts.get('pi-wire-9')).toBeCloseTo(100.25, 6);
  });

  it('refuses a file that is not a pcap', () => {
    expect(() => wireTtfts(Buffer.alloc(24), SERVER)).toThrow(/pcap/);
  });
});
