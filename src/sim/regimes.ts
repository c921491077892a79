/**
 * Demand regimes of the mempool model and the scenarios that sequence them. A regime fixes how
 * many transactions arrive per block, what they call and what they pay; a scenario is a
 * schedule of regimes over block indices.
 */

/** What the network is going through at a block. */
export type Regime = 'calm' | 'surge' | 'sustained' | 'hot_contract'

/** All regimes, in the order `mixed` visits them. */
export const REGIMES: readonly Regime[] = Object.freeze(['calm', 'surge', 'sustained', 'hot_contract'])

/** A named schedule of regimes (`--scenario`). */
export type Scenario = 'calm' | 'surge' | 'sustained' | 'mixed'

/** All scenarios. */
export const SCENARIOS: readonly Scenario[] = Object.freeze(['calm', 'surge', 'sustained', 'mixed'])

/** Which price habits senders follow (see `prices.ts`). */
export type PriceHabit = 'calm' | 'surge' | 'busy'

/**
 * Shares of arrivals by workload class. Light: framework transfers (`0x1::…`, a few gas units).
 * Medium: ordinary dapp calls. Heavy: multi-hop swaps, liquidations. Hot: the one contract of a
 * hot-contract episode (a mint everyone wants).
 */
export interface WorkloadMix {
  light: number
  medium: number
  heavy: number
  hot: number
}

/** How one regime behaves. */
export interface RegimeProfile {
  /** Mean arrivals per block at full intensity (Poisson). */
  arrivals: number
  mix: WorkloadMix
  prices: PriceHabit
}

/**
 * Regime profiles. Calibrated against the block limits in `options.ts` (gas limit 20,000 units,
 * 300 txns): calm blocks carry 0–10 txns; sustained and hot-contract demand (~80/block, mostly
 * 400–800-unit calls) exceeds what the gas limit admits (~40–55 of them), so blocks end on
 * the gas limit and a backlog builds; a surge is a flood of light transfers that fills blocks by
 * count (250–300) long before gas.
 */
export const REGIME_PROFILES: Readonly<Record<Regime, RegimeProfile>> = Object.freeze({
  calm: { arrivals: 0.85, mix: { light: 0.55, medium: 0.35, heavy: 0.1, hot: 0 }, prices: 'calm' },
  surge: { arrivals: 330, mix: { light: 0.8, medium: 0.18, heavy: 0.02, hot: 0 }, prices: 'surge' },
  sustained: { arrivals: 84, mix: { light: 0.12, medium: 0.23, heavy: 0.65, hot: 0 }, prices: 'busy' },
  hot_contract: { arrivals: 80, mix: { light: 0.1, medium: 0.1, heavy: 0.05, hot: 0.75 }, prices: 'busy' },
})

/** The regime of one block, the mean arrivals before it and what they call. */
export interface BlockDemand {
  regime: Regime
  /** Mean arrivals in the interval ending at this block. */
  arrivals: number
  mix: WorkloadMix
}

interface Segment {
  regime: Regime
  blocks: number
  /** Multiplies the profile's arrivals (default 1). */
  scale?: number
}

/**
 * Schedules, as cycles of segments. `surge` is calm with a short burst every 200 blocks;
 * `sustained` is one long congestion; `mixed` is a 2,000-block cycle of calm stretches with
 * two surges, one sustained congestion (36 blocks) and one hot-contract episode (30 blocks)
 * between them — short, because congested blocks are large and the committed sample is 2,000
 * blocks.
 */
const CYCLES: Readonly<Record<Scenario, readonly Segment[]>> = Object.freeze({
  calm: [{ regime: 'calm', blocks: 1 }],
  surge: [
    { regime: 'calm', blocks: 188 },
    { regime: 'surge', blocks: 12 },
  ],
  // A long run at ~1.1× what blocks admit rather than the ~1.7× of mixed's short episode, so
  // congestion persists without nearly every cheap transaction expiring.
  sustained: [{ regime: 'sustained', blocks: 1, scale: 0.66 }],
  mixed: [
    { regime: 'calm', blocks: 480 },
    { regime: 'surge', blocks: 12 },
    { regime: 'calm', blocks: 300 },
    { regime: 'sustained', blocks: 36 },
    { regime: 'calm', blocks: 329 },
    { regime: 'surge', blocks: 12 },
    { regime: 'calm', blocks: 300 },
    { regime: 'hot_contract', blocks: 30 },
    { regime: 'calm', blocks: 501 },
  ],
})

/**
 * The demand at block `index` (0-based from the first generated block) under `scenario`.
 * Within a surge segment arrivals follow `BURST`, so a burst yields about three blocks at the
 * count limit and a backlog that drains; within a
 * sustained run they drift ±15% over ~300 blocks so congestion is not a flat line. O(segments).
 *
 * @example demandAt('mixed', 0).regime // 'calm'
 */
export function demandAt(scenario: Scenario, index: number): BlockDemand {
  const cycle = CYCLES[scenario]
  const length = cycle.reduce((n, s) => n + s.blocks, 0)
  let offset = index % length
  for (const segment of cycle) {
    if (offset < segment.blocks) {
      return { regime: segment.regime, arrivals: arrivalsIn(segment, offset, index), mix: mixIn(segment, offset) }
    }
    offset -= segment.blocks
  }
  throw new RangeError(`unreachable: index ${index} outside cycle`)
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
  return { light: mix.light * rest, medium: mix.medium * rest, heavy: mix.heavy * rest, hot }
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
