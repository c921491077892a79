import { between } from './distributions.js'
import { randomAddress } from './hex.js'
import type { Rng } from './prng.js'
import type { WorkloadMix } from './regimes.js'

/** Workload classes, in `WorkloadMix` order. */
export type WorkloadClass = keyof WorkloadMix

/** An entry function senders call, with what calling it costs. */
export interface EntryFunctionProfile {
  /** `{address}::{module}::{function}`, address in display form. */
  function: string
  type_arguments: string[]
  /** How its arguments look: a transfer (recipient, amount) or one or two u64 amounts. */
  arguments: 'transfer' | 'amount' | 'amounts'
  /** `gas_used` range in gas units, inclusive. */
  gas: readonly [number, number]
  /** Approximate output (write set and events) in bytes, for `block_approx_output_size`. */
  output_bytes: number
}

/** Everything senders can call: framework transfers and a set of dapp contracts. */
export interface Workload {
  light: readonly EntryFunctionProfile[]
  medium: readonly EntryFunctionProfile[]
  heavy: readonly EntryFunctionProfile[]
  /** The contract of hot-contract episodes (a single address, so AIP-68's majority rule sees it). */
  hot: readonly EntryFunctionProfile[]
  /** Batched calls of the busy and congested regimes, one per contract so no contract dominates a block. */
  batch: readonly EntryFunctionProfile[]
}

const APT = '0x1::aptos_coin::AptosCoin'

/**
 * Builds the catalog; contract addresses come from `rng`. Gas ranges are typical mainnet
 * `gas_used` for such calls: a coin transfer ~6–12 units, a swap tens to hundreds. Batched
 * calls (a market maker's order book update, a split route, a liquidation sweep) use thousands,
 * so a congested block ends on the gas limit after about a dozen of them. They reuse the dapps'
 * addresses, so adding them drew nothing more from `rng`.
 */
export function createWorkload(rng: Rng): Workload {
  const dex = randomAddress(rng)
  const market = randomAddress(rng)
  const lend = randomAddress(rng)
  const game = randomAddress(rng)
  const oracle = randomAddress(rng)
  const aggregator = randomAddress(rng)
  const perps = randomAddress(rng)
  const launchpad = randomAddress(rng)
  return {
    light: [
      { function: '0x1::aptos_account::transfer', type_arguments: [], arguments: 'transfer', gas: [6, 10], output_bytes: 420 },
      { function: '0x1::aptos_account::transfer_coins', type_arguments: [APT], arguments: 'transfer', gas: [7, 12], output_bytes: 460 },
      { function: '0x1::primary_fungible_store::transfer', type_arguments: ['0x1::fungible_asset::Metadata'], arguments: 'transfer', gas: [9, 16], output_bytes: 520 },
    ],
    medium: [
      { function: `${dex}::router::swap_exact_input`, type_arguments: [], arguments: 'amounts', gas: [40, 140], output_bytes: 1400 },
      { function: `${market}::marketplace::list_token`, type_arguments: [], arguments: 'amount', gas: [30, 90], output_bytes: 1100 },
      { function: `${lend}::lending::deposit`, type_arguments: [], arguments: 'amount', gas: [35, 110], output_bytes: 1200 },
      { function: `${game}::arena::play_round`, type_arguments: [], arguments: 'amount', gas: [20, 70], output_bytes: 800 },
      { function: `${oracle}::feed::push_price`, type_arguments: [], arguments: 'amounts', gas: [25, 60], output_bytes: 600 },
    ],
    heavy: [
      { function: `${aggregator}::router::swap_multi_hop`, type_arguments: [], arguments: 'amounts', gas: [400, 800], output_bytes: 3800 },
      { function: `${perps}::exchange::place_order`, type_arguments: [], arguments: 'amounts', gas: [400, 750], output_bytes: 3200 },
      { function: `${lend}::lending::liquidate`, type_arguments: [], arguments: 'amounts', gas: [450, 800], output_bytes: 4200 },
    ],
    hot: [{ function: `${launchpad}::launchpad::mint`, type_arguments: [], arguments: 'amount', gas: [350, 520], output_bytes: 2600 }],
    batch: [
      { function: `${perps}::exchange::replace_orders`, type_arguments: [], arguments: 'amounts', gas: [1500, 3500], output_bytes: 9000 },
      { function: `${aggregator}::router::swap_split_route`, type_arguments: [], arguments: 'amounts', gas: [1500, 3000], output_bytes: 8000 },
      { function: `${lend}::lending::liquidate_many`, type_arguments: [], arguments: 'amounts', gas: [2000, 4000], output_bytes: 11000 },
      { function: `${market}::marketplace::sweep_floor`, type_arguments: [], arguments: 'amounts', gas: [1500, 3000], output_bytes: 7000 },
      { function: `${dex}::pool::rebalance_positions`, type_arguments: [], arguments: 'amounts', gas: [1200, 2500], output_bytes: 6000 },
      { function: `${game}::arena::settle_season`, type_arguments: [], arguments: 'amount', gas: [1500, 3000], output_bytes: 7000 },
      { function: `${oracle}::feed::push_prices`, type_arguments: [], arguments: 'amounts', gas: [1000, 2000], output_bytes: 4000 },
      { function: `${launchpad}::launchpad::mint_batch`, type_arguments: [], arguments: 'amount', gas: [1500, 3000], output_bytes: 8000 },
    ],
  }
}

/**
 * Picks a workload class by the regime's mix (shares need not sum to exactly 1). `batch` comes
 * last and adds nothing to the total when its share is 0, so mixes without it draw as before.
 */
export function pickClass(rng: Rng, mix: WorkloadMix): WorkloadClass {
  let x = rng.float() * (mix.light + mix.medium + mix.heavy + mix.hot + mix.batch)
  if ((x -= mix.light) < 0) return 'light'
  if ((x -= mix.medium) < 0) return 'medium'
  if ((x -= mix.heavy) < 0) return 'heavy'
  // the last share is only compared (x - t < 0 exactly when x < t, so the draws are unchanged)
  if (x < mix.hot || mix.batch === 0) return 'hot'
  return 'batch'
}

/** Draws the `gas_used` a call of `fn` will have. */
export function sampleGasUsed(rng: Rng, fn: EntryFunctionProfile): number {
  return between(rng, fn.gas[0], fn.gas[1])
}
