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

/** Writes the UTF-8 bytes of units[0, length) at `out` (lone surrogates as U+FFFD, as TextEncoder does); returns their number. */
export function utf8OfUnits(units: usize, length: i32, out: usize): i32 {
  let n: i32 = 0;
  for (let i: i32 = 0; i < length; i++) {
    let code = <i32>load<u16>(units + (<usize>i << 1));
    if (code < 0x80) {
      store<u8>(out + <usize>n, <u8>code);
      n++;
      continue;
    }
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < length) {
      const low = <i32>load<u16>(units + (<usize>(i + 1) << 1));
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        i++;
        n += utf8Into(code, out + <usize>n);
        continue;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    n += utf8Into(code, out + <usize>n);
  }
  return n;
}

/** Code points of units[0, length) into `out`; their number, or -1 on a lone surrogate. */
export function decodeCodePoints(units: usize, length: i32, out: usize): i32 {
  let n: i32 = 0;
  for (let i: i32 = 0; i < length; i++) {
    let cp = <i32>load<u16>(units + (<usize>i << 1));
    if (cp >= 0xd800 && cp <= 0xdfff) {
      const low = i + 1 < length ? <i32>load<u16>(units + (<usize>(i + 1) << 1)) : 0;
      if (cp > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) return -1;
      cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
      i++;
    }
    setI32(out, n++, cp);
  }
  return n;
}
