/** Turning file bytes into prompt text, refusing what is not text with a reason the user can act on. */
export type DecodeResult = { ok: true; text: string } | { ok: false; reason: string };

export const MAX_PROMPT_FILE_BYTES = 64 * 1024 * 1024;

export function decodePromptBytes(bytes: Uint8Array): DecodeResult {
  if (bytes.length > MAX_PROMPT_FILE_BYTES) {
    return { ok: false, reason: `the file is ${(bytes.length / 1048576).toFixed(0)} MB; prompt files over ${MAX_PROMPT_FILE_BYTES / 1048576} MB are not analysed` };
  }
  // UTF-16 announces itself with a byte-order mark (editors on Windows save it so); its text has NULs in every other byte.
  const utf16 = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : undefined;
  const binary = 'the file looks binary (it contains NUL bytes), not prompt text';
  if (!utf16 && bytes.includes(0)) return { ok: false, reason: binary };
  let text: string;
  try {
    text = new TextDecoder(utf16 ?? 'utf-8', { fatal: true, ignoreBOM: !utf16 }).decode(bytes);
  } catch {
    return { ok: false, reason: utf16 ? `the file starts with a ${utf16.toUpperCase()} byte-order mark but is not valid ${utf16.toUpperCase()}` : 'the file is not valid UTF-8; save it as UTF-8 to count its tokens' };
  }
  if (utf16 && text.includes('\u0000')) return { ok: false, reason: binary };
  return { ok: true, text };
}

/** The editor hands us decoded text; NUL characters there still mean a binary file. */
export function textLooksBinary(text: string): boolean {
  return text.includes('\u0000');
}
