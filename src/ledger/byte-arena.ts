/**
 * Append-only storage of many small byte records in fixed-size chunks, addressed by a number:
 * `chunk · CHUNK_BYTES + offset`. A record never straddles chunks (one longer than a chunk gets a
 * chunk of its own), so reading one is a view of its chunk. Chunks wholly before a position can
 * be released, which is how a store gives pruned records back.
 *
 * Memory: the records plus the unused tail of the last chunk (under 1 MiB); nothing is copied as
 * it grows.
 *
 * @example
 * const at = arena.reserve(n); const end = write(arena.chunk, arena.offset); arena.commit(end)
 */
export class ByteArena {
  static readonly CHUNK_BYTES = 1 << 20
  #chunks: (Buffer | undefined)[] = []
  /** The chunk written to, and the write position in it. */
  chunk: Buffer = Buffer.alloc(0)
  offset = 0
  /** Bytes of the chunks still held. */
  retainedBytes = 0

  /** Makes room for a record of up to `n` bytes at `chunk[offset…]` and returns its address. */
  reserve(n: number): number {
    const size = ByteArena.CHUNK_BYTES
    if (this.offset + n > this.chunk.length) {
      // allocUnsafeSlow: a chunk of its own, not a slice of Node's shared pool.
      this.chunk = Buffer.allocUnsafeSlow(Math.max(size, n))
      this.#chunks.push(this.chunk)
      this.retainedBytes += this.chunk.length
      this.offset = 0
    }
    return (this.#chunks.length - 1) * size + this.offset
  }

  /** Ends the record `reserve` made room for at `end` (a position in `chunk`). */
  commit(end: number): void {
    // A record longer than a chunk has its chunk to itself.
    this.offset = this.chunk.length > ByteArena.CHUNK_BYTES ? this.chunk.length : end
  }

  /** The chunk holding the record at `address`; the record starts at `address % CHUNK_BYTES`. */
  chunkOf(address: number): Buffer {
    return this.#chunks[Math.floor(address / ByteArena.CHUNK_BYTES)] as Buffer
  }

  /** Releases the chunks before the one holding `address` (the oldest record still needed). */
  releaseBefore(address: number): void {
    const last = Math.min(Math.floor(address / ByteArena.CHUNK_BYTES), this.#chunks.length - 1)
    for (let i = 0; i < last; i++) {
      const chunk = this.#chunks[i]
      if (chunk === undefined) continue
      this.retainedBytes -= chunk.length
      this.#chunks[i] = undefined
    }
  }
}
