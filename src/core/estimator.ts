import type { BlockInput, PricedBlock } from './block.js'
import { BlockRing } from './block-ring.js'
import { resolveConfig, type EstimatorConfig, type EstimatorConfigInput } from './config.js'
import { InvalidConfigError } from './errors.js'
import { nextBucket } from './next-bucket.js'
import { priceBlock } from './price-block.js'
import { createWindow, type OrderStatisticWindow } from './window.js'
import { maxU64, type U64 } from './u64.js'
import type { GasEstimate } from './wire.js'
import { estimateForKind, type TxnKind } from './txn-kind.js'

/**
 * The rank each tier takes in its ascending window, as a percentile 0..100: rank
 * `floor(len·pct/100)`, at most `len − 1`. Aptos' statistics are 0 (min), 50 (upper median,
 * `len/2`) and 90 (`len·9/10`); other values give the variants researchers compare.
 */
export interface WindowPercentiles {
  low: number
  market: number
  aggressive: number
}

/** Aptos' statistics (api/src/context.rs): min, upper median, index len*9/10. */
export const APTOS_PERCENTILES: Readonly<WindowPercentiles> = Object.freeze({ low: 0, market: 50, aggressive: 90 })

/** Options of the engine beyond the Aptos config keys. */
export interface EstimatorOptions {
  /** Window ranks as percentiles (default `APTOS_PERCENTILES`). */
  percentiles?: Partial<WindowPercentiles> | undefined
}

/** Rank of percentile `pct` in an ascending window of `len` values: floor(len·pct/100), at most len − 1. O(1). */
export function percentileRank(len: number, pct: number): number {
  return Math.min(len - 1, Math.floor((len * pct) / 100))
}

function statisticName(pct: number): TierExplain['statistic'] {
  return pct === 0 ? 'min' : pct === 50 ? 'median' : `p${pct}`
}

/** Where the current estimate comes from; anything but `history` is a fallback. */
export type EstimateSource = 'history' | 'no_history' | 'disabled' | 'static_override'

/** How one tier was derived from its window. */
export interface TierExplain {
  /** The tier's value. */
  value: U64
  /** Blocks in the tier's window, and how many of them were full. */
  window_blocks: number
  full_blocks: number
  /**
   * The window statistic: with Aptos' ranks min (deprioritized), median (upper median, regular),
   * p90 (index len*9/10, prioritized); `pN` for another percentile.
   */
  statistic: 'min' | 'median' | `p${number}`
  /** Rank taken in the ascending sorted window. */
  index: number
  /** The window's value at that rank, before the max with lower tiers and the bucket step. */
  statistic_value: U64
  /** Height of the block whose min inclusion price is `statistic_value` (the oldest such on ties). */
  set_by_block: U64
  /** The lower tier that raised this one by `max`, if any. */
  raised_by: 'deprioritized' | 'regular' | null
  /** True for the prioritized tier: `next_bucket` was applied. */
  bucketed: boolean
}

/** Why the current estimate is what it is. */
export interface EstimateExplain {
  /** The newest ingested block, or `null` before any. */
  as_of: { block_height: U64; epoch: U64 } | null
  source: EstimateSource
  /** True when the estimate is not derived from history (`source !== 'history'`). */
  fallback: boolean
  /** The newest block, left out of the estimate (`skip_newest_block`), or `null`. */
  skipped_block_height: U64 | null
  blocks_ingested: number
  /** Per-tier derivation; `null` on a fallback. */
  tiers: { deprioritized: TierExplain; regular: TierExplain; prioritized: TierExplain } | null
}

/** One retained block of the history view (a fee history Aptos does not offer). */
export interface BlockHistoryEntry extends PricedBlock {
  /** True when the block is inside the prioritized (largest) window of the current estimate. */
  in_estimate: boolean
}

/**
 * The gas-price estimator: ingest blocks in height order, read the estimate at any time.
 * Semantics equal the Aptos node's `estimate_gas_price` (api/src/context.rs) for the same
 * config and the default `percentiles`; other percentiles change only the rank each window is
 * read at. Ingest costs O(txns) + O(log W); `estimate()` is O(1) (kept current on ingest);
 * memory is fixed by `aggressive_block_history`.
 *
 * @example
 * const e = createEstimator()
 * for (const b of blocks) e.ingest(b)
 * e.estimate() // { deprioritized_gas_estimate: 100, gas_estimate: 100, prioritized_gas_estimate: 150 }
 */
export class Estimator {
  /** The resolved configuration. */
  readonly config: EstimatorConfig
  /** The rank of each window, as a percentile. */
  readonly percentiles: Readonly<WindowPercentiles>
  private readonly low: OrderStatisticWindow
  private readonly market: OrderStatisticWindow
  private readonly aggressive: OrderStatisticWindow
  /** Retained blocks: the largest window + the skipped one. */
  private readonly ring: BlockRing
  private windowEpoch: U64 | null = null
  private deprioritized: U64
  private regular: U64
  private prioritized: U64
  private source: EstimateSource
  private cached: GasEstimate | null = null

  constructor(config: EstimatorConfigInput | EstimatorConfig = {}, options: EstimatorOptions = {}) {
    this.config = resolveConfig(config as EstimatorConfigInput)
    const percentiles = { ...APTOS_PERCENTILES, ...options.percentiles }
    for (const [tier, pct] of Object.entries(percentiles)) {
      if (!Number.isInteger(pct) || pct < 0 || pct > 100) throw new InvalidConfigError(`percentiles.${tier}`, `must be an integer from 0 to 100, got ${JSON.stringify(pct)}`)
    }
    this.percentiles = Object.freeze(percentiles)
    const c = this.config
    this.low = createWindow(c.low_block_history)
    this.market = createWindow(c.market_block_history)
    this.aggressive = createWindow(c.aggressive_block_history)
    this.ring = new BlockRing(c.aggressive_block_history + 1)
    this.deprioritized = c.min_gas_unit_price
    this.regular = c.min_gas_unit_price
    this.prioritized = nextBucket(c.min_gas_unit_price, c.buckets)
    this.source = 'no_history'
    this.recompute()
  }

  /** Number of blocks ingested so far. */
  get blocksIngested(): number {
    return this.ring.count
  }

  /** The newest ingested block's summary, or `undefined` before any. */
  get newest(): PricedBlock | undefined {
    return this.ring.newest
  }

  /**
   * Summarises and ingests the next block. Heights must increase strictly and epochs must not
   * decrease. On any error the estimator is unchanged.
   *
   * @throws InvalidBlockError naming the block and the field.
   */
  ingest(block: BlockInput): PricedBlock {
    const priced = priceBlock(block, this.config)
    this.ring.checkNext(priced)
    this.commit(priced)
    return priced
  }

  /**
   * The current estimate; with `kind`, for transactions of that kind (every tier at least its
   * floor, see `estimateForKind`). O(1).
   *
   * @example e.estimate({ kind: 'encrypted' }).gas_estimate // >= 200 with the default floors
   */
  estimate(options: { kind?: TxnKind } = {}): GasEstimate {
    this.cached ??= Object.freeze({
      deprioritized_gas_estimate: this.deprioritized,
      gas_estimate: this.regular,
      prioritized_gas_estimate: this.prioritized,
    })
    return options.kind === undefined ? this.cached : estimateForKind(this.cached, this.config, options.kind)
  }

  /** How the current estimate was derived. O(log W). */
  explain(): EstimateExplain {
    const newest = this.newest
    const skipped = this.config.skip_newest_block && newest !== undefined ? newest.block_height : null
    const base = {
      as_of: newest === undefined ? null : { block_height: newest.block_height, epoch: newest.epoch },
      source: this.source,
      fallback: this.source !== 'history',
      skipped_block_height: skipped,
      blocks_ingested: this.ring.count,
    }
    if (this.source !== 'history') return { ...base, tiers: null }
    const tier = (
      w: OrderStatisticWindow,
      statistic: TierExplain['statistic'],
      index: number,
      value: U64,
      below: U64 | null,
      belowName: TierExplain['raised_by'],
      bucketed: boolean,
    ): TierExplain => {
      const statistic_value = w.valueAt(index)
      return {
        value,
        window_blocks: w.length,
        full_blocks: w.flaggedCount,
        statistic,
        index,
        statistic_value,
        set_by_block: this.ring.at(w.seqAt(index)).block_height,
        raised_by: below !== null && statistic_value < below ? belowName : null,
        bucketed,
      }
    }
    const p = this.percentiles
    const li = percentileRank(this.low.length, p.low)
    const mi = percentileRank(this.market.length, p.market)
    const ai = percentileRank(this.aggressive.length, p.aggressive)
    return {
      ...base,
      tiers: {
        deprioritized: tier(this.low, statisticName(p.low), li, this.deprioritized, null, null, false),
        regular: tier(this.market, statisticName(p.market), mi, this.regular, this.deprioritized, 'deprioritized', false),
        prioritized: tier(this.aggressive, statisticName(p.aggressive), ai, this.prioritized, this.regular, 'regular', true),
      },
    }
  }

  /** The retained blocks, oldest first (at most `aggressive_block_history` + 1). O(W). */
  history(): BlockHistoryEntry[] {
    const w = this.aggressive
    const hi = w.newestSeq
    const lo = hi - w.length
    const out: BlockHistoryEntry[] = []
    for (let seq = Math.max(0, this.ring.count - this.ring.capacity); seq < this.ring.count; seq++) {
      const b = this.ring.at(seq)
      out.push({ ...b, in_estimate: seq > lo && seq <= hi })
    }
    return out
  }

  /** Forgets every block; the estimate returns to its fallback. */
  clear(): void {
    this.low.clear()
    this.market.clear()
    this.aggressive.clear()
    this.ring.clear()
    this.windowEpoch = null
    this.recompute()
  }

  private commit(priced: PricedBlock): void {
    const c = this.config
    const seq = this.ring.push(priced)
    if (!c.keep_history_across_epochs && this.windowEpoch !== priced.epoch) {
      // Aptos counts only blocks of the current epoch: the walk back stops at an epoch boundary.
      this.low.clear()
      this.market.clear()
      this.aggressive.clear()
    }
    this.windowEpoch = priced.epoch
    // With skip_newest_block the newest block waits one ingest before it counts (Aptos skips the
    // possibly partial newest block); it counts only if still in the current epoch.
    const candidateSeq = c.skip_newest_block ? seq - 1 : seq
    if (candidateSeq >= 0) {
      const candidate = this.ring.at(candidateSeq)
      if (c.keep_history_across_epochs || candidate.epoch === priced.epoch) {
        this.low.push(candidate.min_inclusion_price, candidateSeq, candidate.full)
        this.market.push(candidate.min_inclusion_price, candidateSeq, candidate.full)
        this.aggressive.push(candidate.min_inclusion_price, candidateSeq, candidate.full)
      }
    }
    this.recompute()
  }

  private recompute(): void {
    const c = this.config
    this.cached = null
    if (!c.enabled) return this.fallback('disabled')
    if (c.static_override !== null) {
      this.source = 'static_override'
      this.deprioritized = c.static_override.low
      this.regular = c.static_override.market
      this.prioritized = c.static_override.aggressive
      return
    }
    if (this.low.length === 0) return this.fallback('no_history')
    this.source = 'history'
    const p = this.percentiles
    this.deprioritized = this.low.valueAt(percentileRank(this.low.length, p.low))
    this.regular = maxU64(this.deprioritized, this.market.valueAt(percentileRank(this.market.length, p.market)))
    const top = this.aggressive.valueAt(percentileRank(this.aggressive.length, p.aggressive))
    this.prioritized = nextBucket(maxU64(this.regular, top), c.buckets)
  }

  private fallback(source: EstimateSource): void {
    const c = this.config
    this.source = source
    this.deprioritized = c.min_gas_unit_price
    this.regular = c.min_gas_unit_price
    this.prioritized = nextBucket(c.min_gas_unit_price, c.buckets)
  }
}

/**
 * Creates an estimator from a configuration (Aptos defaults for missing keys).
 *
 * @throws InvalidConfigError naming the key at fault.
 * @example createEstimator({ low_block_history: 5, market_block_history: 20 }, { percentiles: { market: 60 } })
 */
export function createEstimator(config: EstimatorConfigInput = {}, options: EstimatorOptions = {}): Estimator {
  return new Estimator(config, options)
}
