import type { BlockInput, PricedBlock } from '../../core/block.js'
import type { U64 } from '../../core/u64.js'
import type { GasEstimate } from '../../core/wire.js'
import type { TierPromise } from '../../core/calibrated/calibrated-config.js'

/** The three tiers, in the order of the API's fields. */
export type Tier = 'deprioritized' | 'regular' | 'prioritized'

export const TIERS: readonly Tier[] = Object.freeze(['deprioritized', 'regular', 'prioritized'])

export type { TierPromise } from '../../core/calibrated/calibrated-config.js'

/**
 * A gas-price strategy under test. It sees each block once, in order, and gives its three tier
 * prices right after; it may not look ahead.
 */
export interface Strategy {
  /** The spec it was made from (`aptos`, `geth:blocks=30`, …): unique within a backtest. */
  readonly name: string
  readonly kind: 'aptos' | 'geth' | 'target' | 'aci'
  /** JSON-ready description of the parameters in effect. */
  readonly config: Readonly<Record<string, unknown>>
  /** Per tier (see `TIERS`), the promise the tier makes, if any. */
  readonly promises: readonly [TierPromise | null, TierPromise | null, TierPromise | null]
  /**
   * Extra promises priced alongside the tiers to draw a calibration curve (scored like tiers,
   * not reported as tiers). Empty for strategies that promise nothing.
   */
  readonly sweep: readonly TierPromise[]
  /**
   * Ingests the next block. `priced` is the block summarised under the scoring config (shared
   * across strategies so nobody pays for it twice).
   *
   * @throws InvalidBlockError when the block is unusable for this strategy.
   */
  ingest(block: BlockInput, priced: PricedBlock): void
  /** The tier prices after the last ingested block. */
  estimate(): GasEstimate
  /** The sweep prices after the last ingested block, in `sweep` order. */
  sweepEstimate(): readonly U64[]
}

/** The tier prices of an estimate in `TIERS` order. */
export function tierPrices(e: GasEstimate): [U64, U64, U64] {
  return [e.deprioritized_gas_estimate, e.gas_estimate, e.prioritized_gas_estimate]
}
