import { open } from 'node:fs/promises'

/** Bytes per read: the chunk size of the project's other file reads (`readLines`). */
const CHUNK_BYTES = 1 << 20

/**
 * The bytes of a regular file in order, read into two buffers that take turns: the next chunk
 * is read while the consumer works on this one, and no chunk costs fresh memory. A stream
 * (`createReadStream`) allocates a new buffer for every chunk, and on a large file the kernel's
 * faulting in those pages cost several times the reads themselves (bench/ingest-sqlite.ts).
 *
 * Each chunk is valid only until the next one is asked for, as `LineSource` allows: its buffer
 * is then read into again. The file is closed when the iteration ends, however it ends.
 */
export async function* fileChunks(path: string): AsyncGenerator<Buffer> {
  const file = await open(path, 'r')
  let reading = Buffer.allocUnsafeSlow(CHUNK_BYTES)
  let other = Buffer.allocUnsafeSlow(CHUNK_BYTES)
  let next: Promise<number> | undefined = file.read(reading, 0, CHUNK_BYTES, null).then((r) => r.bytesRead)
  try {
    for (;;) {
      const bytesRead = await next
      next = undefined
      if (bytesRead === 0) return
      const chunk = reading.subarray(0, bytesRead)
      // The other buffer's chunk was handed out before this one, and the consumer, asking for
      // this one, is done with it.
      ;[reading, other] = [other, reading]
      next = file.read(reading, 0, CHUNK_BYTES, null).then((r) => r.bytesRead)
      yield chunk
    }
  } finally {
    // A read still in flight (the consumer stopped early, or this one failed) ends before the file closes.
    await next?.catch(() => {})
    await file.close()
  }
}
