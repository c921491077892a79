import type { IngestBlock } from '../store/store.js'
import type { LineBlock } from './ingest-block.js'

/** Bytes per slab: a block whose transactions hold more gets a buffer of its own. */
const SLAB_BYTES = 16 << 20

/**
 * Where a pending batch keeps its blocks' transaction bytes until the batch is written: slabs
 * that are reused batch after batch. An ingest block read from a line holds views of the read
 * chunk its line came in, so a batch held as read keeps every chunk of the file it spans alive
 * (tens of MiB per batch, fresh memory for each new chunk, which the collector and the kernel
 * then pay for: bench/ingest-sqlite.ts). Copied here, the chunks die young and the slabs' memory
 * is written again instead of allocated.
 *
 * Invariant: the views `hold` returns stay valid until `reset`, which the owner calls only once
 * the batch they belong to is written (or given up).
 */
export class BatchArena {
  readonly #slabs: Buffer[] = []
  /** The slab being filled (-1: none yet since the last reset) and how much of it is used (full when none). */
  #slab = -1
  #used = SLAB_BYTES
  /** Where in its buffer the room `#room` made last starts. */
  #at = 0

  /** `block` with its transactions' bytes copied into the arena. O(its bytes). */
  hold(block: IngestBlock): IngestBlock {
    const source = block.transactionJson
    let n = 0
    for (let i = 0; i < source.length; i++) n += (source[i] as Uint8Array).length
    const target = this.#room(n)
    const buffer = target.buffer
    let o = target.byteOffset + this.#at
    const copies = new Array<Uint8Array>(source.length)
    for (let i = 0; i < source.length; i++) {
      const t = source[i] as Uint8Array
      const copy = new Uint8Array(buffer, o, t.length)
      copy.set(t)
      copies[i] = copy
      o += t.length
    }
    return { checked: block.checked, transactionJson: copies }
  }

  /**
   * `block`, read from a line, as an ingest block whose transactions' bytes are copied into the
   * arena. When they are all in the line, the span from the first to the last is copied at once
   * (the commas between them come along) and each transaction gets one view of the copy.
   * O(the span's bytes).
   */
  holdLine(block: LineBlock): IngestBlock {
    if (block.transactionJson !== undefined) return this.hold({ checked: block.checked, transactionJson: block.transactionJson })
    const { line, starts, ends } = block
    const k = starts.length
    if (k === 0) return { checked: block.checked, transactionJson: [] }
    const from = starts[0] as number
    const n = (ends[k - 1] as number) - from
    const target = this.#room(n)
    target.set(new Uint8Array(line.buffer, line.byteOffset + from, n), this.#at)
    const buffer = target.buffer
    const base = target.byteOffset + this.#at - from
    const views = new Array<Uint8Array>(k)
    for (let i = 0; i < k; i++) {
      const s = starts[i] as number
      views[i] = new Uint8Array(buffer, base + s, (ends[i] as number) - s)
    }
    return { checked: block.checked, transactionJson: views }
  }

  /**
   * Room for `n` bytes: the buffer they go in, at `#at`, which is then reserved. A block larger
   * than a slab gets a buffer of its own.
   */
  #room(n: number): Buffer {
    if (n > SLAB_BYTES) {
      this.#at = 0
      return Buffer.allocUnsafeSlow(n)
    }
    if (this.#used + n > SLAB_BYTES) this.#next()
    this.#at = this.#used
    this.#used += n
    return this.#slabs[this.#slab] as Buffer
  }

  /** Makes every slab free again: the views handed out since the last reset must no longer be used. */
  reset(): void {
    this.#slab = -1
    this.#used = SLAB_BYTES
  }

  /** Moves to the next slab, allocating it the first time it is needed. */
  #next(): void {
    this.#slab++
    this.#used = 0
    if (this.#slab === this.#slabs.length) this.#slabs.push(Buffer.allocUnsafeSlow(SLAB_BYTES))
  }
}
