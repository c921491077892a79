import type { BlockInput, PricedBlock } from '../core/block.js'
import type { EstimatorConfig } from '../core/config.js'
import { nextBucket } from '../core/next-bucket.js'
import { priceBlock } from '../core/price-block.js'
import { SlidingWindow } from '../core/window.js'
import { maxU64, type U64 } from '../core/u64.js'
import type { GasEstimate } from '../core/wire.js'

/** Percentile (integer 0..100) taken from each tier's window. */
export interface AptosPercentiles {
  low: number
  market: number
  aggressive: number
}

/** Aptos' statistics as percentiles: min (index 0), upper median (len/2), index len*9/10. */
export const APTOS_PERCENTILES: Readonly<AptosPercentiles> = Object.freeze({ low: 0, market: 50, aggressive: 90 })

/** Rank of percentile `pct` in an ascending window of `len` values: floor(len·pct/100), at most len − 1. */
export function percentileRank(len: number, pct: number): number {
  return Math.min(len - 1, Math.floor((len * pct) / 100))
}

/**
 * The engine's algorithm with the three window statistics as free percentiles, for strategy
 * variants such as `aptos:market_pct=60`. Everything else follows `Estimator` (core/estimator.ts)
 * exactly: the newest block waits one ingest (`skip_newest_block`), the windows restart at an
 * epoch change unless `keep_history_across_epochs`, regular = max(low, market statistic),
 * prioritized = next_bucket(max(regular, aggressive statistic)), and the same fallbacks. At
 * percentiles 0/50/90 it equals the engine (a differential test checks this). O(txns + log W)
 * per block.
 */
export class AptosPercentileEstimator {
  readonly config: EstimatorConfig
  readonly percentiles: Readonly<AptosPercentiles>
  private readonly low: SlidingWindow
  private readonly market: SlidingWindow
  private readonly aggressive: SlidingWindow
  private previous: PricedBlock | null = null
  private windowEpoch: U64 | null = null
  private seq = 0
  private current: GasEstimate

  constructor(config: EstimatorConfig, percentiles: AptosPercentiles) {
    for (const [tier, pct] of Object.entries(percentiles)) {
      if (!Number.isInteger(pct) || pct < 0 || pct > 100) throw new RangeError(`${tier} percentile must be an integer from 0 to 100, got ${pct}`)
    }
    this.config = config
    this.percentiles = Object.freeze({ ...percentiles })
    this.low = new SlidingWindow(config.low_block_history)
    this.market = new SlidingWindow(config.market_block_history)
    this.aggressive = new SlidingWindow(config.aggressive_block_history)
    this.current = this.recompute()
  }

  /** Summarises and ingests the next block (heights and epochs are checked by the caller). */
  ingest(block: BlockInput): PricedBlock {
    const c = this.config
    const priced = priceBlock(block, c)
    if (!c.keep_history_across_epochs && this.windowEpoch !== priced.epoch) {
      this.low.clear()
      this.market.clear()
      this.aggressive.clear()
    }
    this.windowEpoch = priced.epoch
    const candidate = c.skip_newest_block ? this.previous : priced
    if (candidate !== null && (c.keep_history_across_epochs || candidate.epoch === priced.epoch)) {
      const seq = this.seq++
      this.low.push(candidate.min_inclusion_price, seq, candidate.full)
      this.market.push(candidate.min_inclusion_price, seq, candidate.full)
      this.aggressive.push(candidate.min_inclusion_price, seq, candidate.full)
    }
    this.previous = priced
    this.current = this.recompute()
    return priced
  }

  estimate(): GasEstimate {
    return this.current
  }

  private recompute(): GasEstimate {
    const c = this.config
    const min = c.min_gas_unit_price
    if (c.enabled && c.static_override !== null) {
      const o = c.static_override
      return { deprioritized_gas_estimate: o.low, gas_estimate: o.market, prioritized_gas_estimate: o.aggressive }
    }
    if (!c.enabled || this.low.length === 0) {
      return { deprioritized_gas_estimate: min, gas_estimate: min, prioritized_gas_estimate: nextBucket(min, c.buckets) }
    }
    const p = this.percentiles
    const low = this.low.valueAt(percentileRank(this.low.length, p.low))
    const regular = maxU64(low, this.market.valueAt(percentileRank(this.market.length, p.market)))
    const top = this.aggressive.valueAt(percentileRank(this.aggressive.length, p.aggressive))
    return { deprioritized_gas_estimate: low, gas_estimate: regular, prioritized_gas_estimate: nextBucket(maxU64(regular, top), c.buckets) }
  }
}
