import { between, standardNormal } from './distributions.js'
import { MIN_GAS_UNIT_PRICE } from './prices.js'
import type { Rng } from './prng.js'
import { demandIn, type BlockDemand, type Regime, type Segment } from './regimes.js'
import { congestedShare, demandAt, isCyclic, type Scenario } from './scenarios.js'

/** Hands out the demand of each block, in block order. */
export interface Schedule {
  /** The demand of the next block (the first call gives block 0). */
  next(): BlockDemand
}

/**
 * Dwell times of the regime chain, in blocks (inclusive, uniform). Congestion on a real chain
 * lasts minutes to hours, not a block, so every regime but a surge (a fixed-shape burst) stays
 * for tens to hundreds of blocks.
 */
const DWELL: Readonly<Record<Regime, readonly [number, number]>> = Object.freeze({
  calm: [100, 300],
  busy: [30, 100],
  congested: [20, 100],
  surge: [12, 12],
  sustained: [12, 24],
  hot_contract: [12, 24],
})

/**
 * Where `switching` goes when a segment ends, with weights: quiet stretches turn busy (or see a
 * surge or a hot mint), busy ones mostly tip into congestion, and congestion eases back to busy
 * before calm. Rows list targets in a fixed order so draws are reproducible.
 */
const SWITCHING: Readonly<Record<Regime, readonly (readonly [Regime, number])[]>> = Object.freeze({
  calm: [
    ['busy', 0.6],
    ['surge', 0.2],
    ['hot_contract', 0.2],
  ],
  busy: [
    ['congested', 0.65],
    ['calm', 0.25],
    ['sustained', 0.1],
  ],
  congested: [
    ['busy', 0.8],
    ['calm', 0.2],
  ],
  surge: [['calm', 1]],
  sustained: [['busy', 1]],
  hot_contract: [['calm', 1]],
})

/** Lengths of one busy-then-congested episode of `congested-N`, in blocks (inclusive, uniform). */
const EPISODE: readonly [number, number] = [100, 400]

/**
 * Market bidders' going rate: each busy or congested segment draws a base (log-normal, median
 * `median`, log-sd `spread`, clamped to `[lo, hi]`), and per block the rate wanders around it
 * as an AR(1) on its logarithm — x ← φx + σZ, stationary sd σ/√(1−φ²) ≈ 0.26 — so the cheapest
 * price a full block takes drifts within an episode as well as between episodes. The rate never
 * goes below the minimum price.
 */
const LEVEL = Object.freeze({
  busy: { median: 180, spread: 0.3, lo: 110, hi: 1000 },
  congested: { median: 450, spread: 0.5, lo: 150, hi: 5000 },
  phi: 0.95,
  sigma: 0.08,
})

/** Arrivals of a segment as a multiple of its profile's, drawn per segment (uniform in [lo, hi)). */
const SCALE: Readonly<Partial<Record<Regime, readonly [number, number]>>> = Object.freeze({
  busy: [0.8, 1.2],
  congested: [1, 1.3],
  sustained: [0.6, 1],
})

/**
 * The schedule of `scenario`. Cyclic scenarios draw nothing from `rng` (their demand is
 * `demandAt`). `switching` is a semi-Markov chain over every regime (`SWITCHING`, `DWELL`),
 * starting calm. `congested-N` alternates episodes of 100–400 blocks, each a busy stretch then
 * a congested one whose share of the episode is fitted so that N% of blocks come out full
 * (`congestedShare`): congested stretches last 8–330 blocks, busy ones 17–369. O(1) per block.
 *
 * @example createSchedule('congested-50', createRng(1, 4)).next().regime // 'busy'
 */
export function createSchedule(scenario: Scenario, rng: Rng): Schedule {
  if (isCyclic(scenario)) {
    let index = 0
    return { next: () => demandAt(scenario, index++) }
  }
  const share = congestedShare(scenario)
  const segments = share === null ? switchingSegments(rng) : episodeSegments(rng, share)
  let segment: Segment = { regime: 'calm', blocks: 0 }
  let offset = 0
  let index = 0
  let drift = 0
  return {
    next: () => {
      while (offset >= segment.blocks) {
        segment = segments.next().value as Segment
        offset = 0
      }
      drift = LEVEL.phi * drift + LEVEL.sigma * standardNormal(rng)
      const demand = demandIn(segment, offset++, index++)
      if (demand.prices === 'bidding') demand.price_level = Math.max(MIN_GAS_UNIT_PRICE, Math.round(demand.price_level * Math.exp(drift)))
      return demand
    },
  }
}

/** `switching`: an endless semi-Markov walk over the regimes. */
function* switchingSegments(rng: Rng): Generator<Segment, never> {
  let regime: Regime = 'calm'
  for (;;) {
    yield segmentOf(rng, regime, between(rng, ...DWELL[regime]))
    regime = pick(rng, SWITCHING[regime])
  }
}

/** `congested-N`: endless busy-then-congested episodes, `share` of each congested. */
function* episodeSegments(rng: Rng, share: number): Generator<Segment, never> {
  for (;;) {
    const blocks = between(rng, ...EPISODE)
    const congested = Math.round(share * blocks)
    yield segmentOf(rng, 'busy', blocks - congested)
    yield segmentOf(rng, 'congested', congested)
  }
}

function segmentOf(rng: Rng, regime: Regime, blocks: number): Segment {
  const segment: Segment = { regime, blocks }
  const scale = SCALE[regime]
  if (scale !== undefined) segment.scale = scale[0] + (scale[1] - scale[0]) * rng.float()
  if (regime === 'busy' || regime === 'congested') {
    const l = LEVEL[regime]
    segment.price_level = Math.min(l.hi, Math.max(l.lo, l.median * Math.exp(l.spread * standardNormal(rng))))
  }
  return segment
}

function pick<T>(rng: Rng, weighted: readonly (readonly [T, number])[]): T {
  let x = rng.float() * weighted.reduce((n, [, w]) => n + w, 0)
  for (const [value, w] of weighted) if ((x -= w) < 0) return value
  return (weighted[weighted.length - 1] as readonly [T, number])[0]
}
