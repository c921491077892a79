import { CalibratedEstimator } from '../core/calibrated/calibrated-estimator.js'
import type { CalibratedConfig } from '../core/calibrated/calibrated-config.js'
import type { EstimatorConfig } from '../core/config.js'
import { InvalidBlockError } from '../core/errors.js'
import { createEstimator, type Estimator } from '../core/estimator.js'
import { toU64, u64ToBigInt, type U64 } from '../core/u64.js'
import { gasEstimateToJson, type GasEstimate } from '../core/wire.js'
import { parseBlockJson, type ParsedBlock } from '../ledger/store/parse-block.js'
import { DEFAULT_MAX_BLOCK_TRANSACTIONS } from '../ledger/store/limits.js'
import type { LedgerInfo, LedgerStore, RangeBlock } from '../ledger/store/store.js'
import type { BlockJson } from '../ledger/store/types.js'

/** Where a block the estimator could not use is reported (the server's logger). */
export type SkipReporter = (height: U64, error: InvalidBlockError) => void

/** Which estimator answers `GET /v1/estimate_gas_price`: the Aptos node's, or the calibrated one. */
export type EstimatorMode = 'aptos' | 'calibrated'

/** Heights a catch-up reads ahead of the one it ingests, one read each (at most the PostgreSQL store's default pool). */
const READ_AHEAD = 8

/**
 * Most heights one range read asks for (`LedgerStore.parsedBlocks`): enough that a catch-up over
 * the span pays a few round trips, few enough that a range of small blocks stays small.
 */
const RANGE_BLOCKS = 256

/**
 * Most transactions one range read holds past its first block: the largest block a store takes
 * by default. Two ranges are held at once (the next is read while one is ingested), so a
 * catch-up holds at most four such blocks' worth of transactions; READ_AHEAD single reads may
 * hold eight.
 */
const RANGE_TRANSACTIONS = DEFAULT_MAX_BLOCK_TRANSACTIONS

/** The estimator modes, for option checks and usage messages. */
export const ESTIMATOR_MODES: readonly EstimatorMode[] = Object.freeze(['aptos', 'calibrated'])

/**
 * Both estimators at one block height, for reading only (`EstimateFeed.read`). `revision`
 * changes whenever either estimator changes, so a reader may cache what it derives from them.
 */
export interface FeedView {
  readonly aptos: Estimator
  readonly calibrated: CalibratedEstimator
  readonly revision: number
}

/** Both estimators' current estimates at one height, as `EstimateFeed.published` holds them. */
export interface PublishedEstimates {
  /** Height of the newest block the estimators have seen, `null` before any. */
  readonly height: U64 | null
  readonly aptos: GasEstimate
  readonly calibrated: GasEstimate
}

/**
 * Called after each completed update that moved the estimates to newer heights, with the
 * estimates as of each block it covered, oldest first, heights consecutive: one entry for an
 * appended block, one per block for a catch-up (at most the feed's `depth` newest).
 */
export type PublishListener = (estimates: readonly PublishedEstimates[]) => void

/**
 * Blocks that bear on the estimates, the span a feed catches up over: the larger of the Aptos
 * span (`aggressive_block_history` plus the newest block) and the calibrated window.
 */
export function estimateSpan(config: EstimatorConfig, calibrated: CalibratedConfig): number {
  return Math.max(config.aggressive_block_history + 1, calibrated.window)
}

/** Options of an `EstimateFeed`. */
export interface EstimateFeedOptions {
  mode: EstimatorMode
  calibrated: CalibratedConfig
  /**
   * How many of the newest blocks of one update get their own estimates published (the
   * stream's history): older ones of a long catch-up are ingested and not published, so a
   * catch-up over thousands of blocks builds at most this many. Default 1 (the newest only).
   */
  depth?: number
}

/**
 * Keeps two estimators in step with a store, fed the same blocks: the Aptos one and the
 * calibrated one. The estimate it serves (`json`, `estimate()`) is the `mode` one's, at the
 * store's current block height. Blocks reach it through `append` (this server appends) or
 * `syncTo` (someone else appended: the next request catches up from the store). Catching up
 * reads at most the newest `span` blocks, span = max(aggressive_block_history + 1, calibrated
 * window): all the Aptos estimate depends on, and all the calibrated windows hold. Further
 * behind, both estimators start over from the newest span (the calibrated one's levels and
 * coverage counts then restart, as the blocks in between are not read). Updates run one at a
 * time; reads of `json` never wait; `read` waits its turn behind updates.
 *
 * Listeners get the estimates as of each block an update covered (the newest `depth` of them),
 * heights consecutive, so a stream can send one event per block even when a catch-up covers
 * many; those of older blocks are never built.
 *
 * Invariant: `json` and `estimate()` are the estimate after a whole number of whole blocks the
 * store holds, and change only when an update completes; `read` sees both estimators only
 * between updates, after a whole catch-up. A store append that throws leaves them as they were
 * (the estimators see a block only after the store took it); a catch-up that fails half-way
 * publishes nothing, and the next one resumes from the last block ingested (or starts over when
 * it had cleared the estimators); the per-block estimates it had staged go out with the next
 * completed update, so listeners see no height twice and none skipped (but after a restart,
 * which skips the gap). Both estimators always hold the same blocks.
 */
export class EstimateFeed {
  /** The current estimate of `mode` as its wire JSON (exact integers), ready to send. */
  json: string
  readonly mode: EstimatorMode
  /** Both estimators' estimates as of the last completed update (for metrics and the stream). */
  both: PublishedEstimates
  /** Blocks left out because the engine could not read them, since the feed was made. */
  skipped = 0
  private published: GasEstimate
  private readonly listeners = new Set<PublishListener>()
  private readonly view: { aptos: Estimator; calibrated: CalibratedEstimator; revision: number }
  /** Height of the newest block the estimators have seen (ingested or skipped), `null` before any. */
  private fed: U64 | null = null
  /** False from a clear until the catch-up that follows it completes: the blocks held are not yet a whole span. */
  private whole = true
  private queue: Promise<unknown> = Promise.resolve()
  /** Blocks that bear on the estimates: the larger of the Aptos span (largest window plus the skipped newest block) and the calibrated window. */
  private readonly span: bigint
  /** Blocks the Aptos estimate at one height reads: that block and the `aggressive_block_history` before it. */
  private readonly aptosSpan: bigint
  private readonly depth: number
  /** Estimates per block of the update under way (or of one that failed half-way), not yet published; at most `depth`. */
  private pending: PublishedEstimates[] = []
  /**
   * Lowest height whose estimates are published: after starting over at a block above the
   * store's oldest, the heights whose Aptos span reaches below it would show estimates the
   * server never answered (a partial window), so they are not published.
   */
  private publishFrom = 0n

  constructor(
    private readonly store: LedgerStore,
    config: EstimatorConfig,
    options: EstimateFeedOptions,
    private readonly onSkip: SkipReporter = () => {},
  ) {
    this.mode = options.mode
    this.view = { aptos: createEstimator(config), calibrated: new CalibratedEstimator(config, options.calibrated), revision: 0 }
    const aptosSpan = config.aggressive_block_history + 1
    this.depth = options.depth ?? 1
    if (!Number.isSafeInteger(this.depth) || this.depth < 1) throw new RangeError(`depth must be a positive integer, got ${this.depth}`)
    this.aptosSpan = BigInt(aptosSpan)
    this.span = BigInt(estimateSpan(config, options.calibrated))
    this.published = this.served().estimate()
    this.json = gasEstimateToJson(this.published)
    this.both = { height: null, aptos: this.view.aptos.estimate(), calibrated: this.view.calibrated.estimate() }
  }

  /**
   * Calls `listener` after every update that moves the estimates to a newer height, with the
   * estimates as of each block it covered (see `PublishListener`). Returns the unsubscribe.
   */
  subscribe(listener: PublishListener): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  /** Height the estimate is at, `null` before the first block. */
  get height(): U64 | null {
    return this.fed
  }

  /** The current (last published) estimate of `mode`. O(1). */
  estimate(): GasEstimate {
    return this.published
  }

  /** Brings the estimate to `info.block_height` (or past it), reading missing blocks from the store. */
  syncTo(info: LedgerInfo): Promise<void> {
    return this.serial(() => this.catchUp(info))
  }

  /**
   * Catches up to `info` (or past it, when blocks were appended since `info` was read), then
   * calls `reader` with both estimators before any other update runs. What `reader` returns is
   * derived from whole blocks only.
   *
   * @throws whatever the catch-up's store reads throw (nothing is read from a partial catch-up).
   */
  read<T>(info: LedgerInfo, reader: (view: FeedView) => T): Promise<T> {
    return this.serial(async () => {
      await this.catchUp(info)
      return reader(this.view)
    })
  }

  /**
   * Validates `block` as the engine reads it, appends it to the store, then to the estimators.
   * A block the engine cannot read is refused before the store sees it.
   *
   * @throws InvalidBlockError for a block the engine cannot read; whatever the store throws.
   */
  append(block: BlockJson): Promise<void> {
    return this.serial(async () => {
      const parsed = parseBlockJson(block)
      await this.store.appendBlock(block)
      if (this.whole && this.fed !== null && u64ToBigInt(parsed.block_height) === u64ToBigInt(this.fed) + 1n) {
        this.ingest(parsed)
        this.stage()
        this.publish()
        return
      }
      const info = await this.store.ledgerInfo()
      if (info !== null) await this.catchUp(info)
    })
  }

  private served(): Estimator | CalibratedEstimator {
    return this.mode === 'calibrated' ? this.view.calibrated : this.view.aptos
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task)
    this.queue = run.catch(() => {})
    return run
  }

  private async catchUp(given: LedgerInfo): Promise<void> {
    let info = given
    const fed = this.fed === null ? null : u64ToBigInt(this.fed)
    if (fed !== null && (u64ToBigInt(info.block_height) < fed || !this.whole)) {
      // `info` was read before blocks this feed has since taken (a request queued behind an
      // append), or a rebuild stopped half-way: the store's own height decides, so that a stale
      // height neither rolls the estimators back nor ends a rebuild early.
      const now = await this.store.ledgerInfo()
      if (now !== null) info = now
    }
    const target = u64ToBigInt(info.block_height)
    if (fed === target && this.whole) return
    let from: bigint
    if (fed === null || target < fed || target - fed > this.span) {
      // Too far behind (or the store was replaced): the newest span of blocks gives the same
      // Aptos estimate and fills the calibrated windows.
      // `fed` is dropped with the state it described, so a failure below cannot leave it
      // claiming blocks; so are estimates staged for blocks before the gap.
      this.view.aptos.clear()
      this.view.calibrated.clear()
      this.view.revision++
      this.fed = null
      this.whole = false
      this.pending = []
      const oldest = u64ToBigInt(info.oldest_block_height)
      const first = target - this.span + 1n
      from = first > oldest ? first : oldest
      this.publishFrom = from > oldest ? from + this.aptosSpan - 1n : from
    } else {
      from = fed + 1n
    }
    // Only the newest `depth` heights are published: estimates older ones are never built.
    const staged = target - BigInt(this.depth) + 1n
    const ranges = this.store.parsedBlocks?.bind(this.store)
    if (ranges !== undefined) await this.feedRanges(ranges, from, target, staged)
    else await this.feedOneByOne(from, target, staged)
    this.whole = true
    this.publish()
  }

  /**
   * Feeds heights `from..target` read a range at a time (`LedgerStore.parsedBlocks`): one round
   * trip per range rather than per block, and the next range is read while this one is ingested.
   * At most two ranges are held, each bounded in blocks and transactions.
   */
  private async feedRanges(read: NonNullable<LedgerStore['parsedBlocks']>, from: bigint, target: bigint, staged: bigint): Promise<void> {
    const ask = (h: bigint): { count: number; answer: Promise<RangeBlock[]> } => {
      const count = target - h + 1n < BigInt(RANGE_BLOCKS) ? Number(target - h + 1n) : RANGE_BLOCKS
      // A synchronous store's failure becomes a rejection, seen after the range before it is fed.
      const answer = (async () => read(toU64(h), count, RANGE_TRANSACTIONS))()
      // Awaited below; one still pending when an earlier failure ends the catch-up must not surface as unhandled.
      answer.catch(() => {})
      return { count, answer }
    }
    let h = from
    let next = ask(h)
    while (h <= target) {
      const { count, answer } = next
      const blocks = await answer
      if (blocks.length === 0 || blocks.length > count) throw new RangeError(`the store's range read of ${count} heights from ${h} answered ${blocks.length}`)
      const end = h + BigInt(blocks.length)
      if (end <= target) next = ask(end)
      for (const block of blocks) this.feed(h++, block, staged)
    }
  }

  /**
   * Feeds heights `from..target` read one at a time, up to READ_AHEAD at once and ingested in
   * order: a store whose every read is a round trip would otherwise make a catch-up over many
   * blocks wait for each in turn, and a request's store deadline runs over it.
   */
  private async feedOneByOne(from: bigint, target: bigint, staged: bigint): Promise<void> {
    const reads: Promise<RangeBlock>[] = []
    let next = from
    for (let h = from; h <= target; h++) {
      while (next <= target && next < h + BigInt(READ_AHEAD)) {
        const read = this.readBlock(toU64(next))
        // Awaited in order below; one that fails after an earlier failure ends the catch-up must not surface as unhandled.
        read.catch(() => {})
        reads.push(read)
        next++
      }
      this.feed(h, await (reads.shift() as Promise<RangeBlock>), staged)
    }
  }

  /** Ingests the block read at height `h` (none when the store does not hold it) and stages its estimates from height `staged` on. */
  private feed(h: bigint, stored: RangeBlock, staged: bigint): void {
    const height = toU64(h)
    if (stored !== null) this.ingest('transactions' in stored ? parseIfPossible(stored, height, (at, e) => (this.skipped++, this.onSkip(at, e))) : stored)
    this.fed = height
    if (h >= staged) this.stage()
  }

  /** The block at `height` as the catch-up reads it: the store's own parse of it, when it kept it from its append checks (what parsing its JSON gives), else its JSON, or `null` when not held. */
  private async readBlock(height: U64): Promise<RangeBlock> {
    const parsed = this.store.parsedBlockByHeight === undefined ? undefined : await this.store.parsedBlockByHeight(height)
    if (parsed !== undefined) return parsed
    return this.store.blockByHeight(height, true)
  }

  /** Keeps the estimates as of the block just fed for the next `publish` (the newest `depth`). */
  private stage(): void {
    if (this.fed === null || u64ToBigInt(this.fed) < this.publishFrom) return
    this.pending.push({ height: this.fed, aptos: this.view.aptos.estimate(), calibrated: this.view.calibrated.estimate() })
    if (this.pending.length > this.depth) this.pending.shift()
  }

  private ingest(block: ParsedBlock | null): void {
    if (block === null) return
    try {
      const priced = this.view.aptos.ingest(block)
      // Same blocks, same order checks, same config: this cannot refuse what the Aptos one took.
      this.view.calibrated.ingestPriced(priced)
      this.view.revision++
    } catch (error) {
      if (!(error instanceof InvalidBlockError)) throw error
      this.skipped++
      this.onSkip(block.block_height, error)
    }
    this.fed = block.block_height
  }

  private publish(): void {
    this.published = this.served().estimate()
    this.json = gasEstimateToJson(this.published)
    this.both = { height: this.fed, aptos: this.view.aptos.estimate(), calibrated: this.view.calibrated.estimate() }
    if (this.pending.length === 0) return
    const events = this.pending
    this.pending = []
    for (const listener of this.listeners) {
      try {
        listener(events)
      } catch {
        // A listener's failure is its own (the stream drops its client); the feed goes on.
      }
    }
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
