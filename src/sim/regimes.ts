import { MIN_GAS_UNIT_PRICE, type PriceHabit } from './prices.js'

export type { PriceHabit }

/**
 * Demand regimes of the mempool model. A regime fixes how many transactions arrive per block,
 * what they call and what they pay; scenarios (`scenarios.ts`, `regime-chain.ts`) lay regimes
 * out over block indices as segments.
 */

/** What the network is going through at a block. */
export type Regime = 'calm' | 'surge' | 'sustained' | 'hot_contract' | 'busy' | 'congested'

/** All regimes: the four `mixed` visits, then the two of market-priced congestion. */
export const REGIMES: readonly Regime[] = Object.freeze(['calm', 'surge', 'sustained', 'hot_contract', 'busy', 'congested'])


/**
 * Shares of arrivals by workload class. Light: framework transfers (`0x1::…`, a few gas units).
 * Medium: ordinary dapp calls. Heavy: multi-hop swaps, liquidations. Hot: the one contract of a
 * hot-contract episode (a mint everyone wants). Batch: batched calls of thousands of units.
 */
export interface WorkloadMix {
  light: number
  medium: number
  heavy: number
  hot: number
  batch: number
}

/** How one regime behaves. */
export interface RegimeProfile {
  /** Mean arrivals per block at full intensity (Poisson). */
  arrivals: number
  mix: WorkloadMix
  prices: PriceHabit
}

/** Busy and congested demand: mostly heavy and batched calls, ~1,580 gas units on average. */
const MARKET_MIX: WorkloadMix = Object.freeze({ light: 0.05, medium: 0.1, heavy: 0.2, hot: 0, batch: 0.65 })

/**
 * Regime profiles. Calibrated against the block limits in `options.ts` (gas limit 20,000 units,
 * 300 txns): calm blocks carry 0–10 txns; sustained and hot-contract demand (~80/block, mostly
 * 400–800-unit calls) exceeds what the gas limit admits (~40–55 of them), so blocks end on
 * the gas limit and a backlog builds; a surge is a flood of light transfers that fills blocks by
 * count (250–300) long before gas. Busy and congested demand is `MARKET_MIX`, of which a block
 * admits about 13.5 txns (few and large, which keeps the committed sample small): busy brings
 * 3 a block (under a quarter of what fits, so a block is full only while a backlog drains),
 * congested 15.5 (scaled by 1–1.3 per stretch: 1.15–1.5× what fits, so every block is full
 * while it lasts); both bid by the market (`bidding`), so the cheapest price a full block takes
 * is spread, not a bucket.
 */
export const REGIME_PROFILES: Readonly<Record<Regime, RegimeProfile>> = Object.freeze({
  calm: { arrivals: 0.85, mix: { light: 0.55, medium: 0.35, heavy: 0.1, hot: 0, batch: 0 }, prices: 'calm' },
  surge: { arrivals: 330, mix: { light: 0.8, medium: 0.18, heavy: 0.02, hot: 0, batch: 0 }, prices: 'surge' },
  sustained: { arrivals: 84, mix: { light: 0.12, medium: 0.23, heavy: 0.65, hot: 0, batch: 0 }, prices: 'busy' },
  hot_contract: { arrivals: 80, mix: { light: 0.1, medium: 0.1, heavy: 0.05, hot: 0.75, batch: 0 }, prices: 'busy' },
  busy: { arrivals: 3, mix: MARKET_MIX, prices: 'bidding' },
  congested: { arrivals: 15.5, mix: MARKET_MIX, prices: 'bidding' },
})

/** The regime of one block, the mean arrivals before it, what they call and what they pay. */
export interface BlockDemand {
  regime: Regime
  /** Mean arrivals in the interval ending at this block. */
  arrivals: number
  mix: WorkloadMix
  prices: PriceHabit
  /** The going rate market bidders aim at (`bidding` habit); the minimum, 100, elsewhere. */
  price_level: number
}

/** A stretch of blocks in one regime. */
export interface Segment {
  regime: Regime
  blocks: number
  /** Multiplies the profile's arrivals (default 1). */
  scale?: number
  /** Going rate of market bidders over the segment (default the minimum, 100). */
  price_level?: number
}

/**
 * The demand at block `offset` of `segment`; `index` is the block's index in the run. Within a
 * surge segment arrivals follow `BURST`, so a burst yields about three blocks at the count
 * limit and a backlog that drains; within a sustained run they drift ±15% over ~300 blocks so
 * congestion is not a flat line. O(1).
 *
 * @example demandIn({ regime: 'calm', blocks: 10 }, 0, 0).arrivals // 0.85
 */
export function demandIn(segment: Segment, offset: number, index: number): BlockDemand {
  const profile = REGIME_PROFILES[segment.regime]
  return {
    regime: segment.regime,
    arrivals: arrivalsIn(segment, offset, index),
    mix: mixIn(segment, offset),
    prices: profile.prices,
    price_level: segment.price_level ?? MIN_GAS_UNIT_PRICE,
  }
}

/**
 * A hot contract's pull rises and fades over its episode: its share of arrivals goes from ~0.35
 * to the profile's peak and back, so some of its blocks have a majority contract (AIP-68: not
 * full) and some, at the edges, do not.
 */
function mixIn(segment: Segment, offset: number): WorkloadMix {
  const mix = REGIME_PROFILES[segment.regime].mix
  if (segment.regime !== 'hot_contract' || segment.blocks < 2) return mix
  const peak = mix.hot
  const hot = 0.35 + (peak - 0.35) * Math.sin((Math.PI * (offset + 0.5)) / segment.blocks)
  const rest = (1 - hot) / (1 - peak)
  return { light: mix.light * rest, medium: mix.medium * rest, heavy: mix.heavy * rest, hot, batch: mix.batch * rest }
}

/** Arrivals over a surge segment as a share of the peak: three blocks near it, then a fast decay. */
const BURST: readonly number[] = [0.4, 1, 1, 0.6, 0.2, 0.06, 0.02]

function arrivalsIn(segment: Segment, offset: number, index: number): number {
  const profile = REGIME_PROFILES[segment.regime]
  const scale = segment.scale ?? 1
  switch (segment.regime) {
    case 'surge':
      return REGIME_PROFILES.calm.arrivals + scale * profile.arrivals * (BURST[offset] ?? 0)
    case 'sustained':
      return scale * profile.arrivals * (1 + 0.15 * Math.sin((2 * Math.PI * index) / 300))
    default:
      return scale * profile.arrivals
  }
}
