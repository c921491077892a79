import { describe, expect, it } from 'vitest'
import { REGIME_PROFILES, type Regime } from '../../src/sim/regimes.js'
import { demandAt, type CyclicScenario } from '../../src/sim/scenarios.js'

function regimesOver(scenario: CyclicScenario, blocks: number): Map<Regime, number> {
  const counts = new Map<Regime, number>()
  for (let i = 0; i < blocks; i++) {
    const r = demandAt(scenario, i).regime
    counts.set(r, (counts.get(r) ?? 0) + 1)
  }
  return counts
}

describe('demandAt', () => {
  it('mixed visits calm, surge, sustained and hot contract within one 2,000-block cycle, calm most of the time', () => {
    const counts = regimesOver('mixed', 2000)
    expect([...counts.keys()].sort()).toEqual(['calm', 'hot_contract', 'surge', 'sustained'])
    expect(counts.get('calm')!).toBeGreaterThan(1500)
    expect(demandAt('mixed', 0)).toEqual(demandAt('mixed', 2000))
  })

  it('calm and sustained are a single regime throughout; surge is calm with bursts', () => {
    expect([...regimesOver('calm', 1000).keys()]).toEqual(['calm'])
    expect([...regimesOver('sustained', 1000).keys()]).toEqual(['sustained'])
    const surge = regimesOver('surge', 1000)
    expect(surge.get('surge')).toBe(60)
  })

  it('a burst peaks well above what a block holds, then decays to calm', () => {
    const start = [...Array(400).keys()].find((i) => demandAt('surge', i).regime === 'surge')!
    const rates = Array.from({ length: 12 }, (_, k) => demandAt('surge', start + k).arrivals)
    expect(Math.max(...rates)).toBeGreaterThan(300)
    expect(rates.at(-1)).toBeLessThan(2)
  })

  it('a hot contract takes a majority of arrivals at the height of its episode, less at the edges', () => {
    const hot = [...Array(2000).keys()].filter((i) => demandAt('mixed', i).regime === 'hot_contract')
    const shares = hot.map((i) => demandAt('mixed', i).mix.hot)
    expect(Math.max(...shares)).toBeCloseTo(REGIME_PROFILES.hot_contract.mix.hot, 2)
    expect(shares[0]!).toBeLessThan(0.5)
    for (const i of hot) {
      const m = demandAt('mixed', i).mix
      expect(m.light + m.medium + m.heavy + m.hot + m.batch).toBeCloseTo(1, 9)
    }
  })
})
