/**
 * A response body read chunk by chunk up to a byte bound: past it the stream is cancelled and
 * nothing read is kept, so a hostile or broken server cannot fill memory however much it sends.
 */
export async function readBodyBounded(response: Response, maxBytes: number): Promise<{ text: string } | { tooLarge: true }> {
  const reader = response.body?.getReader();
  if (!reader) return { text: '' };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      return { tooLarge: true };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString('utf8') };
}
