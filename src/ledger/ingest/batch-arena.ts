import type { IngestBlock } from '../store/store.js'

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

  /** `block` with its transactions' bytes copied into the arena. O(its bytes). */
  hold(block: IngestBlock): IngestBlock {
    const source = block.transactionJson
    let n = 0
    for (let i = 0; i < source.length; i++) n += (source[i] as Uint8Array).length
    let target: Buffer
    let o: number
    if (n > SLAB_BYTES) {
      target = Buffer.allocUnsafeSlow(n)
      o = 0
    } else {
      if (this.#used + n > SLAB_BYTES) this.#next()
      target = this.#slabs[this.#slab] as Buffer
      o = this.#used
      this.#used += n
    }
    const copies = new Array<Uint8Array>(source.length)
    for (let i = 0; i < source.length; i++) {
      const t = source[i] as Uint8Array
      target.set(t, o)
      copies[i] = target.subarray(o, o + t.length)
      o += t.length
    }
    return { checked: block.checked, transactionJson: copies }
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
