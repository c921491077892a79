import type { BlockInput, PricedBlock } from '../../core/block.js'
import type { TierPromise } from '../../core/calibrated/calibrated-config.js'
import { ConformalQuotes } from '../../core/calibrated/conformal-quotes.js'
import { blockRequirement } from '../../core/requirement.js'
import type { U64 } from '../../core/u64.js'
import type { GasEstimate } from '../../core/wire.js'
import type { Strategy } from './strategy.js'

/** Parameters of the `aci` strategy. */
export interface AciOptions {
  /** Promise of each tier (deprioritized, regular, prioritized). */
  promises: readonly [TierPromise, TierPromise, TierPromise]
  /** Blocks of k-block minimum cutoffs each quantile is read from. */
  window: number
  /** Step γ of the miscoverage update. */
  learning_rate: number
  /** The chain's floor (`min_gas_unit_price`). */
  min_gas_unit_price: U64
}

/** The baseline's defaults (Gibbs & Candès 2021's γ; a window of 120 blocks): window 120, γ 0.005. */
export const ACI_DEFAULTS = Object.freeze({ window: 120, learning_rate: 0.005 })

/**
 * The plain adaptive-conformal baseline: each tier, on its own, quotes the empirical (1 − α)
 * quantile of the newest `window` k-block minimum cutoffs and moves α by γ(1 − q − err) when
 * the outcome of the quote served k blocks ago is known (Gibbs & Candès 2021, k-delayed
 * feedback). No expert choice, no state, no ordering of the tiers: the bar the calibrated
 * estimator is measured against. O(|distinct k| · log W) per block.
 *
 * @example createAciStrategy('aci', { promises: TARGET_DEFAULT_PROMISES, window: 120, learning_rate: 0.005, min_gas_unit_price: 100 })
 */
export function createAciStrategy(name: string, options: AciOptions): Strategy {
  const quotes = new ConformalQuotes(options.promises, options.window, options.learning_rate, options.min_gas_unit_price)
  const floor = options.min_gas_unit_price
  let estimate: GasEstimate = Object.freeze({ deprioritized_gas_estimate: floor, gas_estimate: floor, prioritized_gas_estimate: floor })
  const [d, r, p] = options.promises
  return {
    name,
    kind: 'aci',
    config: Object.freeze({
      window: options.window,
      learning_rate: options.learning_rate,
      min_gas_unit_price: floor,
      method: 'adaptive conformal inference over recent k-block minimum cutoffs, one fixed (window, γ), each tier on its own',
      promises: { deprioritized: d, regular: r, prioritized: p },
    }),
    promises: Object.freeze([d, r, p] as const),
    sweep: [],
    ingest(_block: BlockInput, priced: PricedBlock): void {
      quotes.observe(blockRequirement(priced))
      const prices: U64[] = [0, 1, 2].map((i) => {
        const price = quotes.quote(i)
        quotes.serve(i, price)
        return price
      })
      estimate = Object.freeze({ deprioritized_gas_estimate: prices[0] as U64, gas_estimate: prices[1] as U64, prioritized_gas_estimate: prices[2] as U64 })
    },
    estimate: () => estimate,
    sweepEstimate: () => [],
  }
}
