import type { EstimatorConfig } from '../core/config.js'
import { InvalidBlockError } from '../core/errors.js'
import { createEstimator, type Estimator } from '../core/estimator.js'
import { toU64, u64ToBigInt, type U64 } from '../core/u64.js'
import { gasEstimateToJson, type GasEstimate } from '../core/wire.js'
import { parseBlockJson, type ParsedBlock } from '../ledger/parse-block.js'
import type { LedgerInfo, LedgerStore } from '../ledger/store.js'
import type { BlockJson } from '../ledger/types.js'

/** Where a block the estimator could not use is reported (the server's logger). */
export type SkipReporter = (height: U64, error: InvalidBlockError) => void

/**
 * Keeps an estimator in step with a store: the estimate it serves is the one at the store's
 * current block height. Blocks reach it through `append` (this server appends) or `syncTo`
 * (someone else appended: the next request catches up from the store). Catching up reads only
 * the newest `aggressive_block_history + 1` blocks, which is all the estimate depends on.
 * Updates run one at a time; reads of `json` never wait.
 *
 * Invariant: `json` and `estimate()` are the estimate after a whole number of whole blocks the
 * store holds, and change only when an update completes. A store append that throws leaves them
 * as they were (the estimator sees a block only after the store took it); a catch-up that fails
 * half-way publishes nothing, and the next one resumes from the last block ingested (or starts
 * over when it had cleared the estimator).
 */
export class EstimateFeed {
  /** The current estimate as its wire JSON (exact integers), ready to send. */
  json: string
  private published: GasEstimate
  private readonly estimator: Estimator
  /** Height of the newest block the estimator has seen (ingested or skipped), `null` before any. */
  private fed: U64 | null = null
  private queue: Promise<void> = Promise.resolve()
  /** Blocks that bear on the estimate: the largest window plus the newest, skipped block. */
  private readonly span: bigint

  constructor(
    private readonly store: LedgerStore,
    config: EstimatorConfig,
    private readonly onSkip: SkipReporter = () => {},
  ) {
    this.estimator = createEstimator(config)
    this.span = BigInt(config.aggressive_block_history + 1)
    this.published = this.estimator.estimate()
    this.json = gasEstimateToJson(this.published)
  }

  /** Height the estimate is at, `null` before the first block. */
  get height(): U64 | null {
    return this.fed
  }

  /** The current (last published) estimate. O(1). */
  estimate(): GasEstimate {
    return this.published
  }

  /** Brings the estimate to `info.block_height`, reading missing blocks from the store. */
  syncTo(info: LedgerInfo): Promise<void> {
    return this.serial(() => this.catchUp(info))
  }

  /**
   * Validates `block` as the engine reads it, appends it to the store, then to the estimator.
   * A block the engine cannot read is refused before the store sees it.
   *
   * @throws InvalidBlockError for a block the engine cannot read; whatever the store throws.
   */
  append(block: BlockJson): Promise<void> {
    return this.serial(async () => {
      const parsed = parseBlockJson(block)
      await this.store.appendBlock(block)
      if (this.fed !== null && u64ToBigInt(parsed.block_height) === u64ToBigInt(this.fed) + 1n) {
        this.ingest(parsed)
        this.publish()
        return
      }
      const info = await this.store.ledgerInfo()
      if (info !== null) await this.catchUp(info)
    })
  }

  private serial(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task)
    this.queue = run.catch(() => {})
    return run
  }

  private async catchUp(info: LedgerInfo): Promise<void> {
    const target = u64ToBigInt(info.block_height)
    const fed = this.fed === null ? null : u64ToBigInt(this.fed)
    if (fed === target) return
    let from: bigint
    if (fed === null || target < fed || target - fed > this.span) {
      // Too far behind (or the store was replaced): the newest span of blocks gives the same estimate.
      // `fed` is dropped with the state it described, so a failure below cannot leave it claiming blocks.
      this.estimator.clear()
      this.fed = null
      const oldest = u64ToBigInt(info.oldest_block_height)
      const first = target - this.span + 1n
      from = first > oldest ? first : oldest
    } else {
      from = fed + 1n
    }
    for (let h = from; h <= target; h++) {
      const height = toU64(h)
      const block = await this.store.blockByHeight(height, true)
      if (block !== null) this.ingest(parseIfPossible(block, height, this.onSkip))
      this.fed = height
    }
    this.publish()
  }

  private ingest(block: ParsedBlock | null): void {
    if (block === null) return
    try {
      this.estimator.ingest(block)
    } catch (error) {
      if (!(error instanceof InvalidBlockError)) throw error
      this.onSkip(block.block_height, error)
    }
    this.fed = block.block_height
  }

  private publish(): void {
    this.published = this.estimator.estimate()
    this.json = gasEstimateToJson(this.published)
  }
}

function parseIfPossible(block: BlockJson, height: U64, onSkip: SkipReporter): ParsedBlock | null {
  try {
    return parseBlockJson(block)
  } catch (error) {
    if (!(error instanceof InvalidBlockError)) throw error
    onSkip(height, error)
    return null
  }
}
