import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { expectedWait, inclusionProbability, kBlockMinima, priceForInclusion } from '../../src/core/calibrated/inclusion-stats.js'
import { NUM_RUNS } from './arbitraries.js'

const reqArb = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 101, max: 400 })), { maxLength: 80, size: 'max' })

describe('inclusion statistics over recorded requirements', () => {
  it('kBlockMinima equals the minimum of each k consecutive requirements (naive slice)', () => {
    fc.assert(
      fc.property(reqArb, fc.integer({ min: 1, max: 10 }), (reqs, k) => {
        const naive = reqs.slice(0, Math.max(0, reqs.length - k + 1)).map((_, t) => Math.min(...reqs.slice(t, t + k)))
        expect(kBlockMinima(reqs, k)).toEqual(naive)
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('inclusionProbability is non-decreasing in the price and in k; priceForInclusion is its least q-price', () => {
    fc.assert(
      fc.property(reqArb, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 100, max: 401 }), fc.double({ min: 0.01, max: 0.99, noNaN: true }), (reqs, k, price, q) => {
        const at = inclusionProbability(reqs, price, k)
        const pr = (p: number) => inclusionProbability(reqs, p, k).probability ?? 0
        if (at.samples > 0) {
          expect(pr(price + 1)).toBeGreaterThanOrEqual(at.probability as number)
          if (reqs.length >= k + 1) expect(inclusionProbability(reqs, price, k + 1).probability as number).toBeGreaterThanOrEqual(at.probability as number)
          const p = priceForInclusion(reqs, k, q, 100) as number
          expect(pr(p)).toBeGreaterThanOrEqual(q - 1e-9)
          if (p > 100) expect(pr(p - 1)).toBeLessThan(q)
        } else {
          expect(priceForInclusion(reqs, k, q, 100)).toBeNull()
        }
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('expectedWait averages, from each point, the blocks until the first requirement the price meets', () => {
    fc.assert(
      fc.property(reqArb, fc.integer({ min: 100, max: 401 }), (reqs, price) => {
        const waits = reqs.map((_, t) => reqs.slice(t).findIndex((r) => price >= r))
        const done = waits.filter((w) => w >= 0).map((w) => w + 1)
        const w = expectedWait(reqs, price)
        expect(w.samples).toBe(done.length)
        expect(w.censored).toBe(reqs.length - done.length)
        if (done.length === 0) expect(w.blocks).toBeNull()
        else expect(w.blocks).toBeCloseTo(done.reduce((a, b) => a + b, 0) / done.length, 9)
      }),
      { numRuns: NUM_RUNS },
    )
  })
})
