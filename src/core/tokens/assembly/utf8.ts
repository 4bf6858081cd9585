/** UTF-16 units → UTF-8 bytes and code points, as TextEncoder and tiktoken see them. */
import { setI32 } from './memory';

/** Writes code point cp's UTF-8 bytes at `out`; returns their number. */
export function utf8Into(cp: i32, out: usize): i32 {
  if (cp < 0x80) {
    store<u8>(out, <u8>cp);
    return 1;
  }
  if (cp < 0x800) {
    store<u8>(out, <u8>(0xc0 | (cp >> 6)));
    store<u8>(out + 1, <u8>(0x80 | (cp & 0x3f)));
    return 2;
  }
  if (cp < 0x10000) {
    store<u8>(out, <u8>(0xe0 | (cp >> 12)));
    store<u8>(out + 1, <u8>(0x80 | ((cp >> 6) & 0x3f)));
    store<u8>(out + 2, <u8>(0x80 | (cp & 0x3f)));
    return 3;
  }
  store<u8>(out, <u8>(0xf0 | (cp >> 18)));
  store<u8>(out + 1, <u8>(0x80 | ((cp >> 12) & 0x3f)));
  store<u8>(out + 2, <u8>(0x80 | ((cp >> 6) & 0x3f)));
  store<u8>(out + 3, <u8>(0x80 | (cp & 0x3f)));
  return 4;
}

/** The code point at units[i] (a surrogate pair is read whole: the caller then skips i + 1), or -1 for a lone surrogate. */
@inline export function codePointAt(units: usize, i: i32, length: i32): i32 {
  const unit = <i32>load<u16>(units + (<usize>i << 1));
  if (unit < 0xd800 || unit > 0xdfff) return unit;
  if (unit > 0xdbff || i + 1 >= length) return -1;
  const low = <i32>load<u16>(units + (<usize>(i + 1) << 1));
  return low >= 0xdc00 && low <= 0xdfff ? 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00) : -1;
}

/** Writes the UTF-8 bytes of units[0, length) at `out` (lone surrogates as U+FFFD, as TextEncoder does); returns their number. */
export function utf8OfUnits(units: usize, length: i32, out: usize): i32 {
  let n: i32 = 0;
  for (let i: i32 = 0; i < length; i++) {
    const unit = <i32>load<u16>(units + (<usize>i << 1));
    if (unit < 0x80) {
      store<u8>(out + <usize>n, <u8>unit);
      n++;
      continue;
    }
    let cp = codePointAt(units, i, length);
    if (cp < 0) cp = 0xfffd;
    else if (cp > 0xffff) i++;
    n += utf8Into(cp, out + <usize>n);
  }
  return n;
}

/** Code points of units[0, length) into `out`; their number, or -1 on a lone surrogate. */
export function decodeCodePoints(units: usize, length: i32, out: usize): i32 {
  let n: i32 = 0;
  for (let i: i32 = 0; i < length; i++) {
    const cp = codePointAt(units, i, length);
    if (cp < 0) return -1;
    if (cp > 0xffff) i++;
    setI32(out, n++, cp);
  }
  return n;
}
