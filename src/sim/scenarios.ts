import { demandIn, type BlockDemand, type Segment } from './regimes.js'

/** A scenario that repeats a fixed cycle of segments: its demand is a function of the index. */
export type CyclicScenario = 'calm' | 'surge' | 'sustained' | 'mixed'

/** Percentages of `congested-N`: the share of blocks that are full. */
export type CongestedPercent = 10 | 20 | 30 | 40 | 50 | 60 | 70 | 80 | 90

/** Busy and congested episodes, N% of blocks full (see `regime-chain.ts`). */
export type CongestedScenario = `congested-${CongestedPercent}`

/** Percentages of `iid-N`: the share of blocks under congested demand, each block drawn on its own. */
export type IidPercent = 10 | 50 | 90

/** Every block independently congested (N%) or calm, at a going rate drawn per block (see `regime-chain.ts`). */
export type IidScenario = `iid-${IidPercent}`

/**
 * A named schedule of regimes (`--scenario`). The cyclic ones repeat fixed segments; `switching`,
 * `bursts`, `drift`, `congested-N` and `iid-N` draw their demand from a seeded regime chain.
 */
export type Scenario = CyclicScenario | 'switching' | 'bursts' | 'drift' | CongestedScenario | IidScenario

const CONGESTED_PERCENTS: readonly CongestedPercent[] = [10, 20, 30, 40, 50, 60, 70, 80, 90]

/** `congested-10` … `congested-90`. */
export const CONGESTED_SCENARIOS: readonly CongestedScenario[] = Object.freeze(CONGESTED_PERCENTS.map((n): CongestedScenario => `congested-${n}`))

/** `iid-10`, `iid-50`, `iid-90`. */
export const IID_SCENARIOS: readonly IidScenario[] = Object.freeze(['iid-10', 'iid-50', 'iid-90'])

/** All scenarios. */
export const SCENARIOS: readonly Scenario[] = Object.freeze(['calm', 'surge', 'sustained', 'mixed', 'switching', ...CONGESTED_SCENARIOS, 'bursts', 'drift', ...IID_SCENARIOS])

/**
 * Schedules, as cycles of segments. `surge` is calm with a short burst every 200 blocks;
 * `sustained` is one long congestion; `mixed` is a 2,000-block cycle of calm stretches with
 * two surges, one sustained congestion (36 blocks) and one hot-contract episode (30 blocks)
 * between them — short, because congested blocks are large and the committed sample is 2,000
 * blocks.
 */
const CYCLES: Readonly<Record<CyclicScenario, readonly Segment[]>> = Object.freeze({
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

/** Whether `scenario` repeats a fixed cycle (so `demandAt` can answer for any index). */
export function isCyclic(scenario: Scenario): scenario is CyclicScenario {
  return Object.hasOwn(CYCLES, scenario)
}

/**
 * Share of each `congested-N` episode under congested demand, fitted so that N% of blocks come
 * out full (as the engine judges with Aptos defaults). It is a little below N% because the
 * backlog a congested stretch leaves keeps the next busy blocks full until it drains (about
 * 2% of blocks at N = 10, 6% at N = 70). Fitted by measuring the full share at congested
 * shares 0.1, 0.2, …, 0.9 over seeds 1–6 × 4,000 blocks and interpolating linearly;
 * `test/sim/congested-scenarios.test.ts` checks the result on other seeds.
 */
const CONGESTED_SHARE: Readonly<Record<CongestedPercent, number>> = Object.freeze({
  10: 0.077,
  20: 0.161,
  30: 0.249,
  40: 0.341,
  50: 0.438,
  60: 0.534,
  70: 0.63,
  80: 0.727,
  90: 0.826,
})

/**
 * The share of blocks a `congested-N` scenario aims to have full (N / 100), or null for any
 * other scenario.
 *
 * @example targetFullShare('congested-30') // 0.3
 */
export function targetFullShare(scenario: Scenario): number | null {
  const n = percentOf(scenario)
  return n === null ? null : n / 100
}

/**
 * The share of each episode a `congested-N` scenario spends under congested demand, or null
 * for any other scenario.
 *
 * @example congestedShare('congested-30') // 0.255
 */
export function congestedShare(scenario: Scenario): number | null {
  const n = percentOf(scenario)
  return n === null ? null : CONGESTED_SHARE[n]
}

/**
 * The chance that each block of an `iid-N` scenario is under congested demand (`IID_SHARE`), or
 * null for any other scenario.
 *
 * @example iidShare('iid-50') // 0.46
 */
export function iidShare(scenario: Scenario): number | null {
  return scenario.startsWith('iid-') ? IID_SHARE[Number(scenario.slice('iid-'.length)) as IidPercent] : null
}

/**
 * Chance that an `iid-N` block is under congested demand, fitted so that N% of blocks come out
 * full (Aptos defaults): below N% at 50 and 90 because the backlog a congested block leaves
 * fills some of the calm blocks after it. Fitted on seed 3 × 2,000 blocks;
 * `test/sim/congested-scenarios.test.ts` checks the result on another seed.
 */
const IID_SHARE: Readonly<Record<IidPercent, number>> = Object.freeze({ 10: 0.1, 50: 0.46, 90: 0.73 })

function percentOf(scenario: Scenario): CongestedPercent | null {
  return scenario.startsWith('congested-') ? (Number(scenario.slice('congested-'.length)) as CongestedPercent) : null
}

/**
 * The demand at block `index` (0-based from the first generated block) under a cyclic
 * scenario. O(segments).
 *
 * @example demandAt('mixed', 0).regime // 'calm'
 */
export function demandAt(scenario: CyclicScenario, index: number): BlockDemand {
  const cycle = CYCLES[scenario]
  const length = cycle.reduce((n, s) => n + s.blocks, 0)
  let offset = index % length
  for (const segment of cycle) {
    if (offset < segment.blocks) return demandIn(segment, offset, index)
    offset -= segment.blocks
  }
  throw new RangeError(`unreachable: index ${index} outside cycle`)
}
