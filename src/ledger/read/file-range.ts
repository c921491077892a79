import { closeSync, openSync, readSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { DEFAULT_MAX_LINE_BYTES } from '../store/limits.js'

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

/** The buffer `readSmallFile` starts with: larger than most lines, and a quarter of `readInTurn`'s. */
const SMALL_FILE_CHUNK_BYTES = 1 << 18

/**
 * The bytes of the file at `path` in chunks that end at a newline (the last may not), read
 * synchronously into one buffer refilled for every chunk (a chunk holds until the next is asked
 * for, as `readInTurn`'s do). The unfinished line after a chunk's last newline moves to the
 * buffer's start and the next read goes after it, so the line splitter never copies a line
 * across chunks into fresh memory; a line longer than the buffer takes a buffer twice as large,
 * up to `DEFAULT_MAX_LINE_BYTES`, past which a full buffer is handed over as it is and the
 * splitter's limit applies. Memory: one buffer, 256 KiB or as long as the longest line.
 *
 * For a small regular file read in a fresh process: a read from the page cache is a copy, and
 * doing it on the calling thread saves each chunk's round trip through the thread pool, while one
 * small buffer saves the first touch of fresh pages, which costs a fresh process more than the
 * copy. A large file keeps `readChunks`, whose next chunk is read while one is scanned.
 */
export async function* readSmallFile(path: string): AsyncGenerator<Buffer> {
  const fd = openSync(path, 'r')
  try {
    let buffer = Buffer.allocUnsafeSlow(SMALL_FILE_CHUNK_BYTES)
    // Invariant: buffer[0, held) is the start of a line not yet handed over (no newline in it).
    let held = 0
    for (;;) {
      if (held === buffer.length) {
        if (buffer.length >= DEFAULT_MAX_LINE_BYTES) {
          yield buffer
          held = 0
        } else {
          const larger = Buffer.allocUnsafeSlow(buffer.length * 2)
          buffer.copy(larger, 0, 0, held)
          buffer = larger
        }
      }
      const bytesRead = readSync(fd, buffer, held, buffer.length - held, null)
      if (bytesRead === 0) {
        if (held > 0) yield buffer.subarray(0, held)
        return
      }
      const end = held + bytesRead
      const cut = buffer.lastIndexOf(10, end - 1) + 1
      if (cut === 0) {
        held = end
        continue
      }
      yield buffer.subarray(0, cut)
      buffer.copyWithin(0, cut, end)
      held = end - cut
    }
  } finally {
    closeSync(fd)
  }
}
