/** Turning file bytes into prompt text, refusing what is not text with a reason the user can act on. */
export type DecodeResult = { ok: true; text: string } | { ok: false; reason: string };

export const MAX_PROMPT_FILE_BYTES = 64 * 1024 * 1024;
const BINARY_SNIFF_BYTES = 8192;

export function decodePromptBytes(bytes: Uint8Array): DecodeResult {
  if (bytes.length > MAX_PROMPT_FILE_BYTES) {
    return { ok: false, reason: `the file is ${(bytes.length / 1048576).toFixed(0)} MB; prompt files over ${MAX_PROMPT_FILE_BYTES / 1048576} MB are not analysed` };
  }
  const head = bytes.subarray(0, BINARY_SNIFF_BYTES);
  if (head.includes(0)) return { ok: false, reason: 'the file looks binary (it contains NUL bytes), not prompt text' };
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return { ok: false, reason: 'the file is not valid UTF-8; save it as UTF-8 to count its tokens' };
  }
}

/** The editor hands us decoded text; NUL characters there still mean a binary file. */
export function textLooksBinary(text: string): boolean {
  return text.slice(0, BINARY_SNIFF_BYTES).includes('\u0000');
}
