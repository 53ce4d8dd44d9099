// An HTTP answer's body read with a byte cap, as it streams: past the cap the stream is cancelled (its
// connection closed), so a peer that sends without end costs the cap, not the process's memory. Reading
// the whole text first and checking its size after held any size the peer sent. A Content-Length over
// the cap is refused before a byte is read.

/** The body went past the cap; `bound` says the cap as messages show it (`1 MiB`, `64 KiB`). */
export class BodyTooLarge extends Error {
  readonly bound: string;

  constructor(readonly maxBytes: number) {
    const bound = describeBytes(maxBytes);
    super(`a body over ${bound}`);
    this.name = 'BodyTooLarge';
    this.bound = bound;
  }
}

/** What is read of a fetch answer (the global fetch's and undici's alike). */
export interface StreamedAnswer {
  headers: { get(name: string): string | null };
  body: (AsyncIterable<Uint8Array> & { cancel(reason?: unknown): Promise<void> }) | null;
}

/** The body's bytes, or BodyTooLarge once past `maxBytes` (the rest is never read). */
export async function readCapped(res: StreamedAnswer, maxBytes: number): Promise<Buffer> {
  if (Number(res.headers.get('content-length')) > maxBytes) {
    await res.body?.cancel();
    throw new BodyTooLarge(maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop by a throw cancels the stream, closing the connection.
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new BodyTooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function describeBytes(n: number): string {
  if (n % 2 ** 20 === 0) return `${n / 2 ** 20} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
