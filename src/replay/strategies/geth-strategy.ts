import type { BlockInput, PricedBlock } from '../../core/block.js'
import { SlidingWindow } from '../../core/window.js'
import { addU64, type U64 } from '../../core/u64.js'
import type { GasEstimate } from '../../core/wire.js'
import type { Strategy } from './strategy.js'

/** Parameters of the go-ethereum-style oracle. */
export interface GethOptions {
  /** Blocks sampled (`--gpo.blocks`, geth default 20). */
  blocks: number
  /** Percentile per tier, integer 0..100 (`--gpo.percentile`, geth default 60 for its one answer). */
  percentiles: { low: number; market: number; aggressive: number }
  /**
   * What an empty block contributes: `last` = the previous suggestion, as geth does for a block
   * with no usable transaction (go-ethereum#20409); `skip` = nothing (the window then spans the
   * last `blocks` non-empty blocks).
   */
  empty: 'last' | 'skip'
  /** Answer before any sample (and the starting "previous suggestion"): the chain's minimum price. */
  min_gas_unit_price: U64
}

export const GETH_DEFAULTS = Object.freeze({ blocks: 20, percentile: 60, empty: 'last' as const })

/**
 * A go-ethereum `SuggestTipCap`-style oracle (eth/gasprice/gasprice.go) on Aptos data: one
 * sample per block, its cheapest included `gas_unit_price` (geth takes the 3 cheapest tips; one
 * per block keeps it comparable with the Aptos per-block price), the last `blocks` samples
 * including the newest block, answer `samples[floor((n−1)·percentile/100)]` of the sorted
 * samples (geth's floor-index nearest rank), plus 1 (geth bids its sample; a full Aptos block
 * admits only prices strictly above its cheapest). Geth gives one number; by default all three tiers
 * use it (60). Ignores fullness and epochs, as geth does. O(log W) per block.
 */
export function createGethStrategy(name: string, options: GethOptions): Strategy {
  const window = new SlidingWindow(options.blocks)
  const pct = options.percentiles
  let seq = 0
  const floor = options.min_gas_unit_price
  let current: GasEstimate = { deprioritized_gas_estimate: floor, gas_estimate: floor, prioritized_gas_estimate: floor }
  /** The previous suggestion before the +1 (what an empty block repeats, as geth's lastPrice). */
  let lastSample: U64 = floor
  const at = (p: number): U64 => window.valueAt(Math.floor(((window.length - 1) * p) / 100))
  // +1: a full block admits only prices strictly above its cheapest, so bidding a sample exactly
  // would lose every tie by construction.
  const bid = (v: U64): U64 => addU64(v, 1) ?? v
  return {
    name,
    kind: 'geth',
    config: Object.freeze({ blocks: options.blocks, low_percentile: pct.low, market_percentile: pct.market, aggressive_percentile: pct.aggressive, empty: options.empty, min_gas_unit_price: floor }),
    promises: Object.freeze([null, null, null] as const),
    sweep: [],
    ingest(_block: BlockInput, priced: PricedBlock): void {
      const sample = priced.cheapest_gas_unit_price ?? (options.empty === 'last' ? lastSample : null)
      if (sample === null) return
      window.push(sample, seq++, false)
      lastSample = at(pct.market)
      current = { deprioritized_gas_estimate: bid(at(pct.low)), gas_estimate: bid(lastSample), prioritized_gas_estimate: bid(at(pct.aggressive)) }
    },
    estimate: () => current,
    sweepEstimate: () => [],
  }
}
