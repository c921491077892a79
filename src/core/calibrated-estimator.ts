import type { BlockInput, PricedBlock } from './block.js'
import { BlockRing } from './block-ring.js'
import { resolveCalibratedConfig, type CalibratedConfig, type CalibratedConfigInput, type TierPromise } from './calibrated-config.js'
import { resolveConfig, type EstimatorConfig, type EstimatorConfigInput } from './config.js'
import { ConformalQuotes, type Coverage } from './conformal-quotes.js'
import { expectedWait, inclusionProbability, priceForInclusion, type ExpectedWait, type InclusionProbability } from './inclusion-stats.js'
import { blockRequirement, type Requirement } from './requirement.js'
import { priceBlock } from './price-block.js'
import type { U64 } from './u64.js'
import type { GasEstimate } from './wire.js'

/** The three tiers, in the API's field order. */
export type TierName = 'deprioritized' | 'regular' | 'prioritized'

const TIER_NAMES: readonly TierName[] = Object.freeze(['deprioritized', 'regular', 'prioritized'])

/** One calibrated tier: its promise, its price, and how the promise has held so far. */
export interface CalibratedTier {
  tier: TierName
  /** Included within `k` blocks with probability at least `q`. */
  promise: TierPromise
  /** The price served. */
  price: U64
  /** Outcomes already observed (each quote is settled k blocks after it was served). */
  coverage: Coverage
  /** The minimum price already keeps the promise on the recent window: it is over-kept, not tight. */
  floor_bound: boolean
  /** The quantile level in use after calibration (1 − α; above 1: beyond the recent maximum). */
  level: number
  /** k-block samples the price is read from (at most `window`). */
  samples: number
  /** The higher tier that capped this one to keep the tiers ordered, if any. */
  capped_by: 'regular' | 'prioritized' | null
}

/** Why the calibrated estimate is what it is. */
export interface CalibratedExplain {
  /** The newest ingested block, or `null` before any. */
  as_of: { block_height: U64; epoch: U64 } | null
  /** `no_history` until a block is in (every tier then answers the floor). */
  source: 'history' | 'no_history'
  blocks_ingested: number
  method: string
  window: number
  learning_rate: number
  min_gas_unit_price: U64
  tiers: { deprioritized: CalibratedTier; regular: CalibratedTier; prioritized: CalibratedTier }
}

/**
 * The calibrated estimator: each tier promises inclusion within k blocks with probability at
 * least q, and learns online, from block data alone, to keep that promise (adaptive conformal
 * inference over the recent k-block minimum cutoffs; see `ConformalQuotes`). A block counts as
 * full as the Aptos engine judges it (same config keys: `full_block_txns`, `block_gas_limit`,
 * `apply_block_end_info`, …); a transaction at price p gets into a full block only if p is
 * strictly above its cheapest included price, into any other block at any price.
 *
 * Tiers stay ordered (deprioritized <= regular <= prioritized): a higher tier's price caps the
 * lower ones, and outcomes are scored on the capped price, so a capped tier's calibration makes
 * up for it at other blocks. (Capping from the top rather than raising from the bottom keeps the
 * urgent tiers tight: raising a tier would over-keep its promise whenever a slower tier's price
 * happened to be above it; a slower tier has the slack to absorb the cap, as long as its
 * promise is no harder than the faster one's, which holds for the defaults since the minimum
 * cutoff over more blocks is never higher.) Epoch changes do not reset the
 * history (a requirement is a price, not an epoch-bound statistic). Cost per block O(txns) for
 * pricing plus O(|distinct k| · log W); `estimate()` O(1); the inverse queries O(W) or
 * O(W log W) over the newest `window` blocks. Deterministic: the same blocks give the same
 * prices.
 *
 * @example
 * const e = createCalibratedEstimator({ min_gas_unit_price: 100 }, { regular: { k: 3, q: 0.9 } })
 * for (const b of blocks) e.ingest(b)
 * e.estimate()                  // { deprioritized_gas_estimate, gas_estimate, prioritized_gas_estimate }
 * e.tiers()[1].coverage.rate    // share of regular quotes included within 3 blocks so far
 */
export class CalibratedEstimator {
  /** Block pricing and the floor (the Aptos keys; `static_override` and `enabled` do not apply here). */
  readonly config: EstimatorConfig
  readonly calibrated: CalibratedConfig
  private readonly quotes: ConformalQuotes
  /** The newest `window` blocks. */
  private readonly ring: BlockRing
  private readonly prices: [U64, U64, U64]
  private cached: GasEstimate | null = null

  constructor(config: EstimatorConfigInput | EstimatorConfig = {}, calibrated: CalibratedConfigInput | CalibratedConfig = {}) {
    this.config = resolveConfig(config as EstimatorConfigInput)
    this.calibrated = resolveCalibratedConfig(calibrated as CalibratedConfigInput)
    const c = this.calibrated
    this.quotes = new ConformalQuotes([c.deprioritized, c.regular, c.prioritized], c.window, c.learning_rate, this.config.min_gas_unit_price)
    this.ring = new BlockRing(c.window)
    const floor = this.config.min_gas_unit_price
    this.prices = [floor, floor, floor]
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
    this.ingestPriced(priced)
    return priced
  }

  /**
   * Ingests a block already summarised by `priceBlock` under this estimator's config (for callers
   * that price each block once for several consumers, such as the backtest).
   *
   * @throws InvalidBlockError when the block does not follow the previous one.
   */
  ingestPriced(priced: PricedBlock): void {
    this.ring.checkNext(priced)
    this.ring.push(priced)
    const q = this.quotes
    q.observe(blockRequirement(priced))
    let above: U64 | null = null
    for (let i = 2; i >= 0; i--) {
      let p = q.quote(i)
      if (above !== null && p > above) p = above
      q.serve(i, p)
      this.prices[i] = p
      above = p
    }
    this.cached = null
  }

  /** The current estimate, in the API's wire shape. O(1). */
  estimate(): GasEstimate {
    this.cached ??= Object.freeze({
      deprioritized_gas_estimate: this.prices[0],
      gas_estimate: this.prices[1],
      prioritized_gas_estimate: this.prices[2],
    })
    return this.cached
  }

  /** The three tiers with their promises, prices and achieved coverage. O(1). */
  tiers(): [CalibratedTier, CalibratedTier, CalibratedTier] {
    const q = this.quotes
    const tier = (i: number): CalibratedTier => {
      const price = this.prices[i] as U64
      const capped = i < 2 && price < q.quote(i) ? (TIER_NAMES[i + 1] as 'regular' | 'prioritized') : null
      return {
        tier: TIER_NAMES[i] as TierName,
        promise: q.promises[i] as TierPromise,
        price,
        coverage: q.coverage(i),
        floor_bound: q.floorBound(i),
        level: q.level(i),
        samples: q.samples(i),
        capped_by: capped,
      }
    }
    return [tier(0), tier(1), tier(2)]
  }

  /** How the current estimate was derived. */
  explain(): CalibratedExplain {
    const newest = this.newest
    const [deprioritized, regular, prioritized] = this.tiers()
    return {
      as_of: newest === undefined ? null : { block_height: newest.block_height, epoch: newest.epoch },
      source: newest === undefined ? 'no_history' : 'history',
      blocks_ingested: this.ring.count,
      method: 'adaptive conformal inference (Gibbs & Candès 2021) over the empirical distribution of recent k-block minimum cutoffs; a higher tier caps the lower ones',
      window: this.calibrated.window,
      learning_rate: this.calibrated.learning_rate,
      min_gas_unit_price: this.config.min_gas_unit_price,
      tiers: { deprioritized, regular, prioritized },
    }
  }

  /**
   * Chance that a transaction at `price`, submitted now, is included within `k` blocks, read off
   * the newest `window` blocks (empirical, not calibrated). O(W).
   */
  inclusionProbability(price: U64, k: number): InclusionProbability {
    return inclusionProbability(this.requirements(), price, k)
  }

  /** The least price included within `k` blocks at a share of at least `q` of the newest `window` blocks' submission points, at least the floor; `null` before `k` blocks. O(W log W). */
  priceFor(k: number, q: number): U64 | null {
    return priceForInclusion(this.requirements(), k, q, this.config.min_gas_unit_price)
  }

  /** Mean blocks a transaction at `price` waited over the newest `window` blocks. O(W). */
  expectedWait(price: U64): ExpectedWait {
    return expectedWait(this.requirements(), price)
  }

  /** The newest `limit` retained blocks (at most `window`), oldest first, newest last. O(limit). */
  history(limit = this.ring.capacity): PricedBlock[] {
    return this.ring.newestBlocks(limit)
  }

  /** Forgets every block and every outcome; tiers return to the floor. */
  clear(): void {
    this.quotes.clear()
    this.ring.clear()
    const floor = this.config.min_gas_unit_price
    this.prices.fill(floor)
    this.cached = null
  }

  private requirements(): Requirement[] {
    return this.history().map(blockRequirement)
  }
}

/**
 * Creates a calibrated estimator: block pricing from the Aptos config keys, promises and learning
 * from `calibrated` (defaults: 0.9 within 10, 0.9 within 3, 0.95 within 1; window 1,000; γ 0.05).
 *
 * @throws InvalidConfigError naming the key at fault.
 * @example createCalibratedEstimator({}, { prioritized: { k: 2, q: 0.99 } })
 */
export function createCalibratedEstimator(config: EstimatorConfigInput = {}, calibrated: CalibratedConfigInput = {}): CalibratedEstimator {
  return new CalibratedEstimator(config, calibrated)
}
