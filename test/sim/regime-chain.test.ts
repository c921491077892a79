import { describe, expect, it } from 'vitest'
import { createRng } from '../../src/sim/prng.js'
import { createSchedule } from '../../src/sim/regime-chain.js'
import { REGIMES, type BlockDemand, type Regime } from '../../src/sim/regimes.js'
import { CONGESTED_SCENARIOS, congestedShare, demandAt, targetFullShare, type Scenario } from '../../src/sim/scenarios.js'

function demands(scenario: Scenario, blocks: number, seed = 1): BlockDemand[] {
  const schedule = createSchedule(scenario, createRng(seed, 4))
  return Array.from({ length: blocks }, () => schedule.next())
}

/** Lengths of the maximal stretches of consecutive blocks in `regime`. */
function stretches(ds: readonly BlockDemand[], regime: Regime): number[] {
  const runs: number[] = []
  let run = 0
  for (const d of ds) {
    if (d.regime === regime) run++
    else if (run > 0) {
      runs.push(run)
      run = 0
    }
  }
  if (run > 0) runs.push(run)
  return runs
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length

describe('createSchedule', () => {
  it('a cyclic scenario follows demandAt block by block and draws nothing from the regime stream', () => {
    for (const scenario of ['calm', 'surge', 'sustained', 'mixed'] as const) {
      const rng = createRng(3, 4)
      const schedule = createSchedule(scenario, rng)
      for (let i = 0; i < 2500; i++) expect(schedule.next()).toEqual(demandAt(scenario, i))
      expect(rng.u32()).toBe(createRng(3, 4).u32())
    }
  })

  it('the same seed gives the same schedule, another seed another one', () => {
    for (const scenario of ['switching', 'congested-40'] as const) {
      expect(demands(scenario, 3000, 8)).toEqual(demands(scenario, 3000, 8))
      expect(demands(scenario, 3000, 8)).not.toEqual(demands(scenario, 3000, 9))
    }
  })

  it('congested-N alternates busy and congested stretches of 8–370 blocks, congested for its share of every whole episode', () => {
    for (const scenario of CONGESTED_SCENARIOS) {
      const ds = demands(scenario, 20_000)
      expect(new Set(ds.map((d) => d.regime))).toEqual(new Set(['busy', 'congested']))
      const busy = stretches(ds, 'busy')
      const congested = stretches(ds, 'congested')
      // Drop the last (possibly cut) stretch: every whole episode is a busy stretch then a congested one.
      const episodes = Math.min(busy.length, congested.length) - 1
      const share = congestedShare(scenario)!
      for (let e = 0; e < episodes; e++) {
        const length = busy[e]! + congested[e]!
        expect(length).toBeGreaterThanOrEqual(100)
        expect(length).toBeLessThanOrEqual(400)
        expect(congested[e]).toBe(Math.round(share * length))
      }
      for (const run of [...busy.slice(0, -1), ...congested.slice(0, -1)]) {
        expect(run).toBeGreaterThanOrEqual(8)
        expect(run).toBeLessThanOrEqual(370)
      }
      expect(mean(congested)).toBeGreaterThan(15)
    }
  })

  it('switching visits every regime and stays in each for tens to hundreds of blocks (a surge is its 12-block burst)', () => {
    const ds = demands('switching', 50_000)
    const counts = new Map<Regime, number>()
    for (const d of ds) counts.set(d.regime, (counts.get(d.regime) ?? 0) + 1)
    expect([...counts.keys()].sort()).toEqual([...REGIMES].sort())
    expect(counts.get('calm')! / ds.length).toBeGreaterThan(0.4)
    expect(counts.get('congested')! / ds.length).toBeGreaterThan(0.1)
    for (const regime of ['calm', 'busy', 'congested'] as const) {
      const runs = stretches(ds, regime).slice(1, -1)
      expect(Math.min(...runs), regime).toBeGreaterThanOrEqual(20)
      expect(mean(runs), regime).toBeGreaterThan(50)
    }
    for (const run of stretches(ds, 'surge')) expect(run).toBe(12)
  })

  it('market bidders aim at a going rate above the minimum that wanders slowly (lag-1 autocorrelation of its log > 0.8)', () => {
    const ds = demands('switching', 20_000).filter((d) => d.prices === 'bidding')
    expect(ds.length).toBeGreaterThan(2000)
    const logs = ds.map((d) => Math.log(d.price_level))
    expect(Math.min(...ds.map((d) => d.price_level))).toBeGreaterThanOrEqual(100)
    expect(new Set(ds.map((d) => d.price_level)).size).toBeGreaterThan(200)
    const m = mean(logs)
    let num = 0
    let den = 0
    for (let i = 0; i < logs.length; i++) {
      den += (logs[i]! - m) ** 2
      if (i > 0) num += (logs[i]! - m) * (logs[i - 1]! - m)
    }
    expect(num / den).toBeGreaterThan(0.8)
  })
})

describe('congested-N shares', () => {
  it('targets N% full with a congested share a little below it, rising with N; other scenarios have neither', () => {
    let previous = 0
    for (const scenario of CONGESTED_SCENARIOS) {
      const target = targetFullShare(scenario)!
      expect(target).toBe(Number(scenario.slice('congested-'.length)) / 100)
      const share = congestedShare(scenario)!
      expect(share).toBeLessThan(target)
      expect(share).toBeGreaterThan(target - 0.1)
      expect(share).toBeGreaterThan(previous)
      previous = share
    }
    for (const scenario of ['calm', 'mixed', 'switching'] as const) {
      expect(targetFullShare(scenario)).toBeNull()
      expect(congestedShare(scenario)).toBeNull()
    }
  })
})
