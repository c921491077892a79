import type { BlockInput, PricedBlock } from '../core/block.js'
import { SlidingWindow } from '../core/window.js'
import type { U64 } from '../core/u64.js'
import type { GasEstimate } from '../core/wire.js'
import { blockRequirement, cutoffPrice, type Requirement } from '../core/requirement.js'
import type { Strategy, TierPromise } from './strategy.js'
import { SuffixMin } from '../core/suffix-min.js'

/** Parameters of the `target` strategy. */
export interface TargetOptions {
  /** How many recent k-block windows form the distribution (default 120, Aptos' longest history). */
  window: number
  /** The promise of each tier, in `TIERS` order. */
  promises: readonly [TierPromise, TierPromise, TierPromise]
  /** Also price a calibration sweep (`SWEEP_Q` at each tier's k). */
  sweep: boolean
  /** The chain's floor: no price below it is offered. */
  min_gas_unit_price: U64
}

/** Default promises: 90% within 10, 3 and 1 blocks for the deprioritized, regular and prioritized tiers. */
export const TARGET_DEFAULT_PROMISES: readonly [TierPromise, TierPromise, TierPromise] = Object.freeze([
  Object.freeze({ k: 10, q: 0.9 }),
  Object.freeze({ k: 3, q: 0.9 }),
  Object.freeze({ k: 1, q: 0.9 }),
])

export const TARGET_DEFAULT_WINDOW = 120

/** Probabilities of the calibration sweep. */
export const SWEEP_Q: readonly number[] = Object.freeze([0.5, 0.75, 0.9, 0.95, 0.99])

/**
 * Prices each tier so that its estimated probability of inclusion within k blocks is at least q.
 *
 * A transaction priced p after block t is included within k iff p >= m_k(t), the minimum of the
 * next k blocks' requirements (see `Scorer`). The strategy keeps the last `window` observed
 * values of m_k (the minimum of the requirements of each k consecutive blocks already seen, so
 * no lookahead; the newest window ends at the newest block) and answers their empirical
 * q-quantile: the least observed value v with at least ⌈q·n⌉ of the n values <= v, raised to
 * the floor. Under a stationary stream that is exactly P(p >= m_k) >= q; the backtest checks the
 * promise (calibration). Using the k-block minimum directly, rather than 1 − (1 − F)^k from
 * single blocks, keeps the strong autocorrelation of congestion in the estimate. Before the
 * first complete k-block window the tier answers the floor.
 *
 * O(|distinct k| · log W) per block; memory O(W · |distinct k| + max k).
 */
export function createTargetStrategy(name: string, options: TargetOptions): Strategy {
  const floor = options.min_gas_unit_price
  const sweep: TierPromise[] = []
  const ks = [...new Set(options.promises.map((p) => p.k))].sort((a, b) => a - b)
  if (options.sweep) for (const k of ks) for (const q of SWEEP_Q) sweep.push({ k, q })
  const maxK = ks[ks.length - 1] as number
  const reqs = new SuffixMin<Requirement>(maxK)
  const windows = new Map<number, { w: SlidingWindow; seq: number }>(ks.map((k) => [k, { w: new SlidingWindow(options.window), seq: 0 }]))
  const price = ({ k, q }: TierPromise): U64 => {
    const w = (windows.get(k) as { w: SlidingWindow }).w
    if (w.length === 0) return floor
    const rank = Math.min(w.length, Math.max(1, Math.ceil(q * w.length - 1e-9))) - 1
    const v = w.valueAt(rank)
    return v < floor ? floor : v
  }
  let current: GasEstimate = { deprioritized_gas_estimate: floor, gas_estimate: floor, prioritized_gas_estimate: floor }
  let sweepPrices: U64[] = sweep.map(() => floor)
  const [low, market, aggressive] = options.promises
  return {
    name,
    kind: 'target',
    config: Object.freeze({
      window: options.window,
      min_gas_unit_price: floor,
      method: 'empirical q-quantile of the minimum requirement over each k consecutive recent blocks',
      promises: { deprioritized: low, regular: market, prioritized: aggressive },
    }),
    promises: Object.freeze([low, market, aggressive] as const),
    sweep: Object.freeze(sweep),
    ingest(_block: BlockInput, priced: PricedBlock): void {
      reqs.push(blockRequirement(priced))
      for (const [k, entry] of windows) {
        if (reqs.length < k) continue
        entry.w.push(cutoffPrice(reqs.min(k), floor), entry.seq++, false)
      }
      current = { deprioritized_gas_estimate: price(low), gas_estimate: price(market), prioritized_gas_estimate: price(aggressive) }
      sweepPrices = sweep.map(price)
    },
    estimate: () => current,
    sweepEstimate: () => sweepPrices,
  }
}
