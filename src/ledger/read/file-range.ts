import { open, type FileHandle } from 'node:fs/promises'

/**
 * How a file is cut into byte ranges at line boundaries for worker threads (the threaded block
 * scan, `scan-threads.ts`), and how a worker reads its range.
 */

/** The first newline in `[from, to)` of the file, or -1. Reads 64 KiB at a time. */
async function newlineIn(fh: FileHandle, from: number, to: number): Promise<number> {
  const buffer = Buffer.allocUnsafe(1 << 16)
  for (let at = from; at < to; ) {
    const { bytesRead } = await fh.read(buffer, 0, Math.min(buffer.length, to - at), at)
    if (bytesRead === 0) return -1
    const nl = buffer.subarray(0, bytesRead).indexOf(10)
    if (nl !== -1) return at + nl
    at += bytesRead
  }
  return -1
}

/**
 * The bytes `[start, end)` of chunk `chunk`: the lines that start in
 * `[chunk · chunkBytes, (chunk + 1) · chunkBytes)`, whole. A line starts at 0 and after each
 * newline, so neighbouring chunks find the same newline between them and every line belongs to
 * exactly one chunk. A line running on for more than `maxLineBytes` is cut just past the limit:
 * the splitter then refuses it as a sequential read would. Empty (`start === end`) when no line
 * starts in the chunk.
 */
export async function chunkRange(fh: FileHandle, chunk: number, chunkBytes: number, size: number, maxLineBytes: number): Promise<{ start: number; end: number }> {
  const from = chunk * chunkBytes
  const next = from + chunkBytes
  let start = 0
  if (chunk > 0) {
    const nl = await newlineIn(fh, from - 1, Math.min(next - 1, size))
    if (nl === -1) return { start: size, end: size }
    start = nl + 1
  }
  if (next >= size) return { start, end: size }
  const cap = Math.min(size, next - 1 + maxLineBytes + 2)
  const nl = await newlineIn(fh, next - 1, cap)
  return { start, end: nl === -1 ? cap : nl + 1 }
}

/**
 * Chunks of an open file from `start` (`null`: its current position) until `end` or its end, in
 * two buffers of up to 1 MiB taken in turn: the next chunk is read while the one yielded is used.
 * When chunk k + 1 is asked for, chunk k + 2 starts to be read into chunk k's buffer, so a chunk
 * holds until the next is asked for: as the line splitter (`readLineBytes`) needs, which copies
 * what it keeps of a chunk. Read directly, not through a stream that reads ahead (`Readable.from`).
 *
 * Two buffers, not a fresh one per chunk: a load worker's freed chunks stayed in its thread's
 * malloc arena after it ended (10 to 30 MB of RSS in a 154 MB load), and a load on the calling
 * thread's in the main heap (about 15 MB).
 */
async function* readInTurn(fh: FileHandle, start: number | null, end: number, counted?: { newlines: number; last: number }): AsyncGenerator<Buffer> {
  const size = Math.max(1, Math.min(1 << 20, end - (start ?? 0)))
  let filling = Buffer.allocUnsafeSlow(size)
  let spare = Buffer.allocUnsafeSlow(size)
  let at = start
  const read = (b: Buffer) => fh.read(b, 0, Math.min(b.length, end - (at ?? 0)), at)
  let next = read(filling)
  try {
    for (;;) {
      const { bytesRead } = await next
      if (bytesRead === 0) return
      const bytes = filling.subarray(0, bytesRead)
      if (at !== null) at += bytesRead
      ;[filling, spare] = [spare, filling]
      next = at !== null && at >= end ? Promise.resolve({ bytesRead: 0, buffer: filling }) : read(filling)
      if (counted !== undefined) {
        for (let p = bytes.indexOf(10); p !== -1; p = bytes.indexOf(10, p + 1)) counted.newlines++
        counted.last = bytes[bytesRead - 1] as number
      }
      yield bytes
    }
  } finally {
    // A read still under way writes into a buffer, and holds the file handle, until it ends.
    await next.catch(() => undefined)
  }
}

/**
 * The bytes `[start, end)` of the file as `readInTurn` reads them, counting newlines into
 * `counted` and keeping the last byte read.
 */
export function readRange(fh: FileHandle, start: number, end: number, counted: { newlines: number; last: number }): AsyncGenerator<Buffer> {
  return readInTurn(fh, start, end, counted)
}

/** The bytes of the file at `path` from `start` (default: its start) to its end (also a pipe's, from its start), as `readInTurn` reads them. */
export async function* readChunks(path: string, start?: number): AsyncGenerator<Buffer> {
  const fh = await open(path, 'r')
  try {
    yield* readInTurn(fh, start ?? null, Number.MAX_SAFE_INTEGER)
  } finally {
    await fh.close()
  }
}
