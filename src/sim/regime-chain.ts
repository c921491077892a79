import { between, standardNormal } from './distributions.js'
import { MIN_GAS_UNIT_PRICE } from './prices.js'
import type { Rng } from './prng.js'
import { demandIn, type BlockDemand, type Regime, type Segment } from './regimes.js'
import { congestedShare, demandAt, iidShare, isCyclic, type Scenario } from './scenarios.js'

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

/** Calm stretches between the bursts of `bursts`, in blocks (inclusive, uniform): bursts are rare. */
const BURST_GAP: readonly [number, number] = [300, 900]

/**
 * `drift`: one market congestion whose going rate drifts slowly, from `lo` up to `hi` and back
 * over `period` blocks (a cosine on the log scale), under the same per-block AR(1) jitter as the
 * other market regimes; arrivals at `scale` × the congested profile, a little more than blocks
 * admit, so the cheapest bidders wait and a full block's cutoff follows the going rate.
 */
const DRIFT = Object.freeze({ lo: 150, hi: 1500, period: 4000, scale: 1.15 })

/**
 * The schedule of `scenario`. Cyclic scenarios draw nothing from `rng` (their demand is
 * `demandAt`). `switching` is a semi-Markov chain over every regime (`SWITCHING`, `DWELL`),
 * starting calm. `congested-N` alternates episodes of 100–400 blocks, each a busy stretch then
 * a congested one whose share of the episode is fitted so that N% of blocks come out full
 * (`congestedShare`): congested stretches last 8–330 blocks, busy ones 17–369. `bursts` is calm
 * with a surge after every 300–900 calm blocks; `drift` is `DRIFT`; `iid-N` draws each block on
 * its own: congested demand with chance N% at a going rate drawn for that block alone (the
 * congested level's log-normal), else calm, so fullness is independent across blocks but for
 * the backlog a congested block leaves. O(1) per block.
 *
 * @example createSchedule('congested-50', createRng(1, 4)).next().regime // 'busy'
 */
export function createSchedule(scenario: Scenario, rng: Rng): Schedule {
  if (isCyclic(scenario)) {
    let index = 0
    return { next: () => demandAt(scenario, index++) }
  }
  const iid = iidShare(scenario)
  if (iid !== null) return iidSchedule(rng, iid)
  const share = congestedShare(scenario)
  const segments = scenario === 'bursts' ? burstSegments(rng) : scenario === 'drift' ? driftSegments() : share === null ? switchingSegments(rng) : episodeSegments(rng, share)
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

/** `iid-N`: each block congested with chance `share` at a going rate of its own, else calm. */
function iidSchedule(rng: Rng, share: number): Schedule {
  let index = 0
  return {
    next: () => {
      const congested = rng.float() < share
      const segment: Segment = congested ? segmentOf(rng, 'congested', 1) : { regime: 'calm', blocks: 1 }
      return demandIn(segment, 0, index++)
    },
  }
}

/** `bursts`: calm for 300–900 blocks, then a surge, forever. */
function* burstSegments(rng: Rng): Generator<Segment, never> {
  for (;;) {
    yield { regime: 'calm', blocks: between(rng, ...BURST_GAP) }
    yield { regime: 'surge', blocks: DWELL.surge[0] }
  }
}

/** `drift`: one-block congested segments whose going rate follows `DRIFT`'s slow cosine. */
function* driftSegments(): Generator<Segment, never> {
  const ratio = Math.log(DRIFT.hi / DRIFT.lo)
  for (let i = 0; ; i++) {
    const level = DRIFT.lo * Math.exp((ratio * (1 - Math.cos((2 * Math.PI * i) / DRIFT.period))) / 2)
    yield { regime: 'congested', blocks: 1, scale: DRIFT.scale, price_level: level }
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
