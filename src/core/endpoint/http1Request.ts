/**
 * Serialises one HTTP/1.1 POST. Header names and values are checked here because they come from
 * user settings: a line break in a value would let a setting inject headers or a second request.
 */

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Visible ASCII, spaces/tabs and obs-text; no CR, LF or other control characters.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Set by this module: a caller's copy would contradict the framing. */
const OWN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

export class RequestHeaderError extends Error {}

export function requestBytes(url: URL, headers: Record<string, string>, body: Buffer): Buffer {
  let head = `POST ${url.pathname || '/'}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw new RequestHeaderError(`The header name ${JSON.stringify(name)} is not valid in HTTP.`);
    if (!FIELD_VALUE.test(value)) throw new RequestHeaderError(`The value of header '${name}' contains a line break, a control character or a character beyond Latin-1, which HTTP headers cannot carry.`);
    if (OWN_HEADERS.has(name.toLowerCase())) continue;
    head += `${name}: ${value.trim()}\r\n`;
  }
  head += `content-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}
