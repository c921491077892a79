import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Backtest } from '../../../src/replay/backtest.js'
import { frontierChart, frontierKs, frontierPoints, paretoFrontier } from '../../../src/replay/report/frontier-chart.js'
import { parseStrategies } from '../../../src/replay/strategies/parse-strategies.js'
import { toBacktestJson } from '../../../src/replay/result-json.js'
import { NUM_RUNS, SMALL, syntheticChain } from '../../helpers/replay.js'
import { refFrontier } from '../reference.js'

type P = { coverage: number; overpayment: number }

function backtest(strategies: string, blocks = 800) {
  const bt = new Backtest({ strategies: parseStrategies(strategies, SMALL), ks: [1, 3], config: SMALL })
  for (const b of syntheticChain(blocks, 3)) bt.push(b)
  return toBacktestJson(bt.finish())
}

describe('paretoFrontier', () => {
  it('keeps exactly the points nothing beats, once each, by coverage ascending (against a plain O(n²) reference)', () => {
    const point = fc.record({ coverage: fc.integer({ min: 0, max: 20 }).map((x) => x / 20), overpayment: fc.integer({ min: 0, max: 30 }) })
    fc.assert(
      fc.property(fc.array(point, { maxLength: 40 }), (points) => {
        const front = paretoFrontier(points)
        expect(front.map((p) => [p.coverage, p.overpayment])).toEqual(refFrontier(points).map((p) => [p.coverage, p.overpayment]))
        // along the frontier, more coverage costs more
        for (let i = 1; i < front.length; i++) {
          expect((front[i] as P).coverage).toBeGreaterThan((front[i - 1] as P).coverage)
          expect((front[i] as P).overpayment).toBeGreaterThan((front[i - 1] as P).overpayment)
        }
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('a point both cheaper and better covered than the rest is the whole frontier', () => {
    const best = { coverage: 0.99, overpayment: 0 }
    expect(paretoFrontier([{ coverage: 0.9, overpayment: 3 }, best, { coverage: 0.99, overpayment: 1 }])).toEqual([best])
    expect(paretoFrontier([])).toEqual([])
  })
})

describe('frontierChart', () => {
  it('has a panel per promised k, a point per strategy tier with included transactions, and the promised q marked', () => {
    const json = backtest('aptos,geth,target:k=1:q=0.99:sweep=false,target:sweep=false')
    // target's default promises: 0.8 within 10, 0.9 within 3, 0.95 within 1
    expect(frontierKs(json)).toEqual([1, 3, 10])
    const svg = frontierChart(json)
    expect(svg.match(/<g class="panel" data-k="(\d+)"/g)).toEqual(['<g class="panel" data-k="1"', '<g class="panel" data-k="3"', '<g class="panel" data-k="10"'])
    // each panel's markup up to the next panel (the last one's runs on into the legend, which has no point or q)
    const panels = svg.split('<g class="panel" ').slice(1)
    for (const [i, k] of [1, 3, 10].entries()) {
      const points = frontierPoints(json, k)
      expect(points).toHaveLength(12)
      const drawn = panels[i] as string
      expect(drawn.match(/class="point( front)?"/g)).toHaveLength(12)
      expect(drawn.match(/class="point front"/g)).toHaveLength(paretoFrontier(points).length)
      const qs = [...new Set(points.flatMap((p) => (p.q === null ? [] : [p.q])))].sort()
      expect([...drawn.matchAll(/class="promiselabel"[^>]*>q ([0-9.]+)%</g)].map((m) => Number(m[1]) / 100)).toEqual(qs)
    }
    expect(frontierPoints(json, 1).filter((p) => p.q !== null).map((p) => `${p.strategy} ${p.tier} ${p.q}`)).toEqual([
      'target:k=1:q=0.99:sweep=false deprioritized 0.99',
      'target:k=1:q=0.99:sweep=false regular 0.99',
      'target:k=1:q=0.99:sweep=false prioritized 0.99',
      'target:sweep=false prioritized 0.95',
    ])
  })

  it('is accessible: a title and a description naming the frontier, a title on every point', () => {
    const json = backtest('aptos,target:sweep=false', 400)
    const svg = frontierChart(json)
    expect(svg).toMatch(/^<svg [^>]*role="img" aria-labelledby="frontier-title frontier-desc"/)
    expect(svg).toContain('<title id="frontier-title">Cost against coverage')
    const desc = svg.slice(svg.indexOf('<desc id="frontier-desc">'), svg.indexOf('</desc>'))
    for (const k of [1, 3, 10]) {
      const front = paretoFrontier(frontierPoints(json, k))
      for (const p of front) expect(desc).toContain(`${p.strategy} ${p.tier} (`)
      expect(desc).toContain(`Within ${k}: ${frontierPoints(json, k).length} points`)
    }
    const points = svg.match(/<(circle|rect|path) class="point[^>]*>[^<]*<title>/g) ?? []
    expect(points).toHaveLength(3 * 6)
  })

  it('falls back to the requested k without promises, and says so when nothing was included', () => {
    const json = backtest('aptos,geth', 300)
    expect(frontierKs(json)).toEqual([1, 3])
    for (const s of json.strategies) for (const t of s.tiers) for (const o of Object.values(t.overpayment_by_k)) Object.assign(o, { mean: null })
    expect(frontierChart(json)).toContain('no tier had a transaction included within 1')
  })
})
