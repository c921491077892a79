/**
 * Strings written as UTF-8 into shared chunks, each handed out as a view of its chunk: one
 * allocation per chunk instead of one buffer per string. A chunk lives as long as any of its
 * views, so it suits strings that are dropped together (a commit's transactions).
 */
export class Utf8Chunks {
  #chunk: Buffer = Buffer.alloc(0)
  #at = 0
  readonly #chunkBytes: number

  /** `chunkBytes`: the size of each chunk; a longer string gets a chunk of its own size. */
  constructor(chunkBytes = 1 << 20) {
    this.#chunkBytes = chunkBytes
  }

  /** `text` as UTF-8: a view into the current chunk, or a new one when it may not fit (3 bytes a UTF-16 unit at most). */
  bytes(text: string): Buffer {
    const most = text.length * 3
    if (this.#chunk.length - this.#at < most) {
      this.#chunk = Buffer.allocUnsafe(Math.max(this.#chunkBytes, most))
      this.#at = 0
    }
    const start = this.#at
    this.#at += this.#chunk.write(text, start, 'utf8')
    return this.#chunk.subarray(start, this.#at)
  }
}
