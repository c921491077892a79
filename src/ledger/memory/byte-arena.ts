import type { ChunkSource } from './page-toucher.js'

/**
 * Append-only storage of many small byte records in fixed-size chunks, addressed by a number:
 * `chunk · chunkBytes + offset`. A record never straddles chunks (one longer than a chunk gets a
 * chunk of its own), so reading one is a view of its chunk. Chunks wholly before a position can
 * be released, which is how a store gives pruned records back.
 *
 * Chunks are 32 MiB by default: at that size glibc's malloc always maps a chunk on its own
 * (its mmap threshold tops out at 32 MiB), so a chunk's untouched tail costs no RSS and a
 * released chunk goes back to the system at once, instead of sitting in the allocator's heap
 * among the freed read buffers of a load (bench/memory-store.ts measures the RSS).
 *
 * @example
 * const at = arena.reserve(n); const end = write(arena.chunk, arena.offset); arena.commit(end)
 */
export class ByteArena {
  static readonly DEFAULT_CHUNK_BYTES = 32 << 20
  readonly chunkBytes: number
  #chunks: (Buffer | undefined)[] = []
  /** Bytes written into each chunk (index as `#chunks`). */
  #written: number[] = []
  /** The chunk written to, and the write position in it. */
  chunk: Buffer = Buffer.alloc(0)
  offset = 0
  /** Bytes of records in the chunks still held (what the records cost; the chunks' untouched tails cost nothing). */
  retainedBytes = 0

  /** Where chunks come from while a load has a `PageToucher` on (`source`); else allocated here. */
  source: ChunkSource | undefined

  constructor(chunkBytes: number = ByteArena.DEFAULT_CHUNK_BYTES) {
    this.chunkBytes = chunkBytes
  }

  /** Makes room for a record of up to `n` bytes at `chunk[offset…]` and returns its address. */
  reserve(n: number): number {
    if (this.offset + n > this.chunk.length) {
      // allocUnsafeSlow: a chunk of its own, not a slice of Node's shared pool; never zeroed, so untouched pages stay unmapped.
      const bytes = Math.max(this.chunkBytes, n)
      this.chunk = this.source?.take(bytes) ?? Buffer.allocUnsafeSlow(bytes)
      this.#chunks.push(this.chunk)
      this.#written.push(0)
      this.offset = 0
    }
    return (this.#chunks.length - 1) * this.chunkBytes + this.offset
  }

  /** Ends the record `reserve` made room for at `end` (a position in `chunk`). */
  commit(end: number): void {
    const last = this.#chunks.length - 1
    this.retainedBytes += end - this.offset
    this.#written[last] = end
    this.source?.reached(this.chunk, end)
    // A record longer than a chunk has its chunk to itself.
    this.offset = this.chunk.length > this.chunkBytes ? this.chunk.length : end
  }

  /** The chunk holding the record at `address`; the record starts at `address % chunkBytes`. */
  chunkOf(address: number): Buffer {
    return this.#chunks[Math.floor(address / this.chunkBytes)] as Buffer
  }

  /** Releases the chunks before the one holding `address` (the oldest record still needed). */
  releaseBefore(address: number): void {
    const last = Math.min(Math.floor(address / this.chunkBytes), this.#chunks.length - 1)
    for (let i = 0; i < last; i++) {
      if (this.#chunks[i] === undefined) continue
      this.retainedBytes -= this.#written[i] as number
      this.#chunks[i] = undefined
    }
  }
}
