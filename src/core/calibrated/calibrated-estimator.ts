import type { BlockInput, PricedBlock } from '../block.js'
import { BlockRing } from '../block-ring.js'
import { resolveCalibratedConfig, type CalibratedConfig, type CalibratedConfigInput, type TierPromise } from './calibrated-config.js'
import { resolveConfig, type EstimatorConfig, type EstimatorConfigInput } from '../config.js'
import type { Coverage } from './conformal-quotes.js'
import { expectedWait, inclusionProbability, priceForInclusion, type ExpectedWait, type InclusionProbability } from './inclusion-stats.js'
import { PROMISE_LEARNER_DEFAULTS, PromiseLearner, type PromiseExplain } from './promise-learner.js'
import { blockRequirement, type Requirement } from '../requirement.js'
import { priceBlock } from '../price-block.js'
import { estimateForKind, kindFloor, type TxnKind } from '../txn-kind.js'
import type { U64 } from '../u64.js'
import type { GasEstimate } from '../wire.js'

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
  /** Which expert of the learner and which chain state drove the price. */
  driver: PromiseExplain
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
 * least q, and learns online, from block data alone, to keep that promise at the lowest price
 * (an ensemble of adaptive-conformal experts over the recent k-block minimum cutoffs, marginal or
 * conditioned on the chain's state, with an outer calibration and a floor rule; see
 * `PromiseLearner`). `priceFor` and `inclusionProbability` answer from the same learner at the
 * tiers' horizons, so a tier and `priceFor` with the same (k, q) agree. A block counts as
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
  private readonly quotes: PromiseLearner
  /** The newest `window` blocks. */
  private readonly ring: BlockRing
  private readonly prices: [U64, U64, U64]
  private cached: GasEstimate | null = null

  constructor(config: EstimatorConfigInput | EstimatorConfig = {}, calibrated: CalibratedConfigInput | CalibratedConfig = {}) {
    this.config = resolveConfig(config as EstimatorConfigInput)
    this.calibrated = resolveCalibratedConfig(calibrated as CalibratedConfigInput)
    const c = this.calibrated
    this.quotes = new PromiseLearner([c.deprioritized, c.regular, c.prioritized], learnerOptions(c, this.config.min_gas_unit_price))
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
    let changed = false
    for (let i = 2; i >= 0; i--) {
      let p = q.quote(i)
      if (above !== null && p > above) p = above
      q.serve(i, p)
      if (p !== this.prices[i]) changed = true
      this.prices[i] = p
      above = p
    }
    // the frozen estimate is rebuilt only when a tier's price moved: a calm chain's quotes sit still for many blocks
    if (changed) this.cached = null
  }

  /**
   * The current estimate, in the API's wire shape; with `kind`, for transactions of that kind
   * (every tier at least its floor, see `estimateForKind`). O(1).
   *
   * @example e.estimate({ kind: 'high_limit' }).gas_estimate // >= 1000 with the default floors
   */
  estimate(options: { kind?: TxnKind } = {}): GasEstimate {
    this.cached ??= Object.freeze({
      deprioritized_gas_estimate: this.prices[0],
      gas_estimate: this.prices[1],
      prioritized_gas_estimate: this.prices[2],
    })
    return options.kind === undefined ? this.cached : estimateForKind(this.cached, this.config, options.kind)
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
        driver: q.explain(i),
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
      method:
        'an ensemble of adaptive-conformal experts (DtACI-style, Gibbs & Candès 2022) over (window, γ), each reading recent k-block minimum cutoffs, marginal or only those taken in the current chain state, the least discounted pinball loss served, under an outer calibration of the served price; the floor when it keeps the promise on the recent state; a higher tier caps the lower ones',
      window: this.calibrated.window,
      learning_rate: this.calibrated.learning_rate,
      min_gas_unit_price: this.config.min_gas_unit_price,
      tiers: { deprioritized, regular, prioritized },
    }
  }

  /**
   * Chance that a transaction at `price`, submitted now, is included within `k` blocks. At a
   * tier's horizon it answers from that tier's learner (see `PromiseLearner.probabilityOf`), so
   * the tier's own price reads at least its q; `samples` counts the window's submission points
   * either way. At other horizons: empirical, over the newest `window` blocks. With `kind`, a
   * price below that kind's floor has probability 0. O(W).
   */
  inclusionProbability(price: U64, k: number, kind: TxnKind = 'standard'): InclusionProbability {
    if (kind !== 'standard' && price < kindFloor(this.config, kind)) {
      // below its kind's floor a transaction is never included: the kind's requirement is at least that floor
      const samples = Math.max(0, Math.min(this.ring.count, this.calibrated.window) - k + 1)
      return { probability: samples === 0 ? null : 0, samples }
    }
    const i = this.tierAt(k)
    const p = i === null ? null : this.quotes.probabilityOf(i, price)
    if (i === null || p === null) return inclusionProbability(this.requirements(), price, k)
    // the submission points of the newest `window` blocks whose next k blocks are known, as the empirical answer counts them
    const samples = Math.max(0, Math.min(this.ring.count, this.calibrated.window) - k + 1)
    // at or above an uncapped tier's price the learner keeps the tier's q (its floor rule reads all recent samples, not only the driver's)
    const keeps = price >= (this.prices[i] as U64) && (this.tiers()[i] as CalibratedTier).capped_by === null
    return { probability: keeps ? Math.max(p, (this.quotes.promises[i] as TierPromise).q) : p, samples }
  }

  /**
   * The least price included within `k` blocks with probability at least `q`, at least the
   * floor; `null` before `k` blocks. At a tier's horizon it answers from that tier's learner
   * (the same level shift as `inclusionProbability`), so `priceFor(tier.k, tier.q)` is the
   * tier's price; at other horizons, the empirical q-quantile of the newest `window` blocks'
   * k-block minima. With `kind`, at least that kind's floor (its requirement never is lower).
   * O(W log W).
   */
  priceFor(k: number, q: number, kind: TxnKind = 'standard'): U64 | null {
    const p = this.standardPriceFor(k, q)
    if (p === null || kind === 'standard') return p
    const floor = kindFloor(this.config, kind)
    return p < floor ? floor : p
  }

  private standardPriceFor(k: number, q: number): U64 | null {
    const i = this.tierAt(k, q)
    if (i !== null && this.quotes.length >= k) {
      const tier = this.quotes.promises[i] as TierPromise
      if (tier.q === q) return this.prices[i] as U64
      return this.quotes.priceAt(i, q)
    }
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

  /** The tier promising horizon k (the one nearest to `q` when several do), or `null`. */
  private tierAt(k: number, q?: number): number | null {
    let best: number | null = null
    this.quotes.promises.forEach((p, i) => {
      if (p.k !== k) return
      const b = best === null ? null : (this.quotes.promises[best] as TierPromise)
      if (b === null || (q !== undefined && Math.abs(p.q - q) < Math.abs(b.q - q))) best = i
    })
    return best
  }

  private requirements(): Requirement[] {
    return this.history().map(blockRequirement)
  }
}

/**
 * The learner's grid from the calibrated config: expert windows the defaults' capped at
 * `window` (so `window` bounds the memory), expert steps γ and γ/10 for `learning_rate` γ, the
 * outer calibration at γ/20 (see `PROMISE_LEARNER_DEFAULTS`).
 */
export function learnerOptions(c: CalibratedConfig, floor: U64): { floor: U64; windows: number[]; learningRates: number[]; outerRate: number } {
  const windows = [...new Set(PROMISE_LEARNER_DEFAULTS.windows.map((w) => Math.min(w, c.window)))]
  const γ = c.learning_rate
  return { floor, windows, learningRates: [γ / 10, γ], outerRate: γ / 20 }
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
