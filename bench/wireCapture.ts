/**
 * The TTFT reference no process can bias: tcpdump on loopback, with the kernel's nanosecond
 * timestamps of the packet that carried a request and of the packet that carried its first content
 * token. Each request carries a marker (`pi-wire-N`) so its wire TTFT pairs with the client's
 * measurement of the same request. The simulator's own report is stamped by its event loop, which
 * a GC pause or a burst of arrivals delays; the wire is not. Needs tcpdump and the right to capture.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WireCapture {
  /** Stops the capture: wire TTFT (ms) per marker, and packets the kernel dropped (then the reference is incomplete). */
  stop(): Promise<{ ttftByMarker: Map<string, number>; dropped: number }>;
}

export const wireMarker = (n: number): string => `pi-wire-${n}`;

/** Starts capturing `tcp port P` on lo; a string says why it cannot. */
export async function startWireCapture(port: number): Promise<WireCapture | string> {
  if (spawnSync('tcpdump', ['--version']).error) return 'tcpdump is not installed (apt-get install tcpdump)';
  const dir = mkdtempSync(join(tmpdir(), 'pi-wire-'));
  const file = join(dir, 'capture.pcap');
  const child = spawn('tcpdump', ['-i', 'lo', '-U', '-s', '0', '-B', '32768', '--time-stamp-precision=nano', '-w', file, 'tcp', 'port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const listening = await new Promise<boolean>((done) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (/listening on/.test(stderr)) done(true);
    });
    child.on('exit', () => done(false));
    child.on('error', () => done(false));
  });
  if (!listening) {
    rmSync(dir, { recursive: true, force: true });
    return `tcpdump cannot capture here: ${stderr.trim().split('\n').pop() ?? 'no reason given'}`;
  }
  return {
    async stop() {
      const exited = new Promise<void>((done) => child.on('exit', () => done()));
      child.kill('SIGINT');
      await exited;
      const dropped = Number(/(\d+) packets dropped by kernel/.exec(stderr)?.[1] ?? 0);
      const ttftByMarker = wireTtfts(readFileSync(file), port);
      rmSync(dir, { recursive: true, force: true });
      return { ttftByMarker, dropped };
    },
  };
}

const FIRST_CONTENT_TOKEN = /"delta":\{"content":"[^"]/;
const MARKER = /pi-wire-\d+/;

/** Per marker: first content-token packet − first request packet, on the request's TCP connection. */
export function wireTtfts(pcap: Buffer, serverPort: number): Map<string, number> {
  const out = new Map<string, number>();
  const magic = pcap.readUInt32LE(0);
  const nano = magic === 0xa1b23c4d;
  if (!nano && magic !== 0xa1b2c3d4) throw new Error('not a little-endian pcap file');
  const linkType = pcap.readUInt32LE(20);
  const linkHeader = linkType === 1 ? 14 : linkType === 113 ? 16 : linkType === 276 ? 20 : linkType === 0 ? 4 : -1;
  if (linkHeader < 0) throw new Error(`unexpected link type ${linkType}`);
  const flows = new Map<number, { start: number; text: string; marker?: string; waiting: boolean }>();
  let firstSec: number | undefined;
  for (let at = 24; at + 16 <= pcap.length; ) {
    const sec = pcap.readUInt32LE(at);
    const frac = pcap.readUInt32LE(at + 4);
    const length = pcap.readUInt32LE(at + 8);
    const packet = pcap.subarray(at + 16, at + 16 + length);
    at += 16 + length;
    firstSec ??= sec;
    const t = (sec - firstSec) * 1000 + (nano ? frac / 1e6 : frac / 1e3);
    const ip = packet.subarray(linkHeader);
    if (ip.length < 20 || ip[0]! >> 4 !== 4 || ip[9] !== 6) continue;
    const tcp = ip.subarray((ip[0]! & 0x0f) * 4, ip.readUInt16BE(2));
    const from = tcp.readUInt16BE(0);
    const to = tcp.readUInt16BE(2);
    const payload = tcp.subarray((tcp[12]! >> 4) * 4).toString('latin1');
    if (payload.length === 0) continue;
    if (to === serverPort) {
      const flow = flows.get(from);
      if (payload.startsWith('POST ')) flows.set(from, { start: t, text: payload, waiting: true });
      else if (flow) flow.text += payload;
      const current = flows.get(from);
      if (current) current.marker ??= MARKER.exec(current.text)?.[0];
    } else if (from === serverPort) {
      const flow = flows.get(to);
      if (flow?.waiting && flow.marker && FIRST_CONTENT_TOKEN.test(payload)) {
        out.set(flow.marker, t - flow.start);
        flow.waiting = false;
      }
    }
  }
  return out;
}
