import type { FileHandle } from 'node:fs/promises'

/**
 * How a file is cut into byte ranges at line boundaries for worker threads (the threaded block
 * scan, `scan-threads.ts`, and the threaded memory store load, `load-threads.ts`), and how a
 * worker reads its range.
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
 * The bytes `[start, end)` of the file, 1 MiB at a time into one buffer refilled for each chunk,
 * counting newlines into `counted` and keeping the last byte read. For the line splitter
 * (`readLineBytes`, which copies what it keeps of a chunk) read directly, not through a stream
 * that reads ahead (`Readable.from`). One buffer, not one per chunk: a worker's freed chunks
 * stayed in its thread's malloc arena after it ended, 10 to 30 MB of RSS in a 154 MB load.
 */
export async function* readRange(fh: FileHandle, start: number, end: number, counted: { newlines: number; last: number }): AsyncGenerator<Buffer> {
  const buffer = Buffer.allocUnsafeSlow(Math.min(1 << 20, Math.max(1, end - start)))
  for (let at = start; at < end; ) {
    const { bytesRead } = await fh.read(buffer, 0, Math.min(buffer.length, end - at), at)
    if (bytesRead === 0) return
    const bytes = buffer.subarray(0, bytesRead)
    for (let p = bytes.indexOf(10); p !== -1; p = bytes.indexOf(10, p + 1)) counted.newlines++
    counted.last = bytes[bytesRead - 1] as number
    at += bytesRead
    yield bytes
  }
}
