import { closeSync, openSync, readSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'

/** How a file's bytes are read: whole chunks, in two buffers taken in turn. */

/**
 * Chunks of an open file from `start` (`null`: its current position) until `end` or its end, in
 * two buffers of up to 1 MiB taken in turn: the next chunk is read while the one yielded is used.
 * When chunk k + 1 is asked for, chunk k + 2 starts to be read into chunk k's buffer, so a chunk
 * holds until the next is asked for: as the line splitter (`readLineBytes`) needs, which copies
 * what it keeps of a chunk. Read directly, not through a stream that reads ahead (`Readable.from`).
 *
 * Two buffers, not a fresh one per chunk: freed chunks stay in the heap and the malloc arena
 * until a collection, which raised a load's peak RSS.
 */
async function* readInTurn(fh: FileHandle, start: number | null, end: number): AsyncGenerator<Buffer> {
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
      yield bytes
    }
  } finally {
    // A read still under way writes into a buffer, and holds the file handle, until it ends.
    await next.catch(() => undefined)
  }
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

/** The buffer `readSmallFile` refills: larger than most lines, and a quarter of `readInTurn`'s. */
const SMALL_FILE_CHUNK_BYTES = 1 << 18

/**
 * The bytes of the file at `path`, read synchronously into one buffer of 256 KiB refilled for
 * every chunk (a chunk holds until the next is asked for, as `readInTurn`'s do). For a small
 * regular file read in a fresh process: a read from the page cache is a copy, and doing it on
 * the calling thread saves each chunk's round trip through the thread pool, while one small
 * buffer saves the first touch of two large ones, which costs a fresh process more than the copy
 * (each new page faults). A large file keeps `readChunks`, whose next chunk is read while one is
 * scanned.
 */
export async function* readSmallFile(path: string): AsyncGenerator<Buffer> {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.allocUnsafeSlow(SMALL_FILE_CHUNK_BYTES)
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null)
      if (bytesRead === 0) return
      yield buffer.subarray(0, bytesRead)
    }
  } finally {
    closeSync(fd)
  }
}
