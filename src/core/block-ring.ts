import type { PricedBlock } from './block.js'
import { InvalidBlockError } from './errors.js'

/**
 * The newest `capacity` priced blocks by ingest sequence number (slot `seq % capacity`), with the
 * ingest order rule both estimators share. The slots grow with the blocks held (sequence numbers
 * start at 0 and are consecutive, so until the ring turns over each push appends), up to
 * `capacity`: an estimator that has seen few blocks holds few, and a new one allocates nothing
 * here. Push O(1) amortised; once full, no push allocates.
 */
export class BlockRing {
  readonly capacity: number
  /** slots[seq % capacity]; `min(pushed, capacity)` long. */
  private readonly slots: PricedBlock[] = []
  private pushed = 0

  constructor(capacity: number) {
    this.capacity = capacity
  }

  /** Blocks pushed so far (the next block's sequence number). */
  get count(): number {
    return this.pushed
  }

  /** The newest block, or `undefined` before any. */
  get newest(): PricedBlock | undefined {
    return this.pushed === 0 ? undefined : this.slots[(this.pushed - 1) % this.capacity]
  }

  /** The block pushed with sequence number `seq`; requires it to be among the newest `capacity`. */
  at(seq: number): PricedBlock {
    return this.slots[seq % this.capacity] as PricedBlock
  }

  /**
   * Throws unless `priced` may follow the newest block: heights increase strictly, epochs never
   * decrease. Changes nothing.
   *
   * @throws InvalidBlockError naming the block and the field.
   */
  checkNext(priced: PricedBlock): void {
    const prev = this.newest
    if (prev === undefined) return
    if (!(priced.block_height > prev.block_height)) {
      throw new InvalidBlockError(String(priced.block_height), 'block_height', `must be above the previous block's (${prev.block_height})`)
    }
    if (priced.epoch < prev.epoch) {
      throw new InvalidBlockError(String(priced.block_height), 'epoch', `(${priced.epoch}) is below the previous block's (${prev.epoch})`)
    }
  }

  /** Adds the next block (call `checkNext` first) and returns its sequence number. */
  push(priced: PricedBlock): number {
    const seq = this.pushed++
    this.slots[seq % this.capacity] = priced
    return seq
  }

  /** The newest `limit` retained blocks (at most `capacity`), oldest first. O(limit). */
  newestBlocks(limit = this.capacity): PricedBlock[] {
    const n = Math.min(limit, this.capacity, this.pushed)
    const out: PricedBlock[] = []
    for (let seq = this.pushed - n; seq < this.pushed; seq++) out.push(this.at(seq))
    return out
  }

  clear(): void {
    this.slots.length = 0
    this.pushed = 0
  }
}
