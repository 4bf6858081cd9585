/**
 * A keyless GET to a server we only observe (its kind, its metrics), bounded in time and size: the
 * body is read chunk by chunk and dropped past the limit, so a hostile or broken server cannot
 * fill memory or stall the runs. The error says what went wrong.
 */
export async function boundedGet(url: string, timeoutMs: number, maxBytes: number): Promise<{ text: string; contentType: string } | { error: string }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    if (!response.ok) return { error: `HTTP ${response.status}` };
    const reader = response.body?.getReader();
    if (!reader) return { error: 'no body' };
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxBytes) {
        await reader.cancel();
        return { error: `more than ${maxBytes} bytes` };
      }
      chunks.push(value);
    }
    return { text: Buffer.concat(chunks).toString('utf8'), contentType: response.headers.get('content-type') ?? '' };
  } catch (error) {
    return { error: (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (error as Error).message };
  }
}
