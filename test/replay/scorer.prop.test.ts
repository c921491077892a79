import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { U64 } from '../../src/core/u64.js'
import type { Requirement } from '../../src/core/requirement.js'
import { Scorer } from '../../src/replay/scorer.js'
import { NUM_RUNS } from '../helpers/replay.js'
import { refScore } from './reference.js'

/** Requirements as blocks produce them: 0 (not full) or cheapest + 1, on a few price levels. */
const reqArb = fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.constantFrom(101, 151, 201, 301, 501, 1001).chain((r) => fc.constantFrom(r, r + 7)) })
const priceArb = fc.constantFrom(100, 150, 151, 200, 300, 500, 501, 1000, 3000)
const ksArb = fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 })

function run(reqs: Requirement[], tracks: U64[][], ks: number[], floor: U64): Scorer {
  const s = new Scorer(tracks.length, ks, floor)
  reqs.forEach((r, i) => s.push(r, tracks.map((t) => t[i] as U64)))
  s.close()
  return s
}

describe('scorer properties', () => {
  it('equals the O(N²) reference: evaluated, included, overpayments and delays, for every k', () => {
    fc.assert(
      fc.property(fc.array(reqArb, { maxLength: 80, size: 'max' }), ksArb, fc.constantFrom(0, 100), fc.integer({ min: 1, max: 3 }), fc.infiniteStream(priceArb), (reqs, ks, floor, T, stream) => {
        const tracks = Array.from({ length: T }, () => reqs.map(() => stream.next().value as number))
        const s = run(reqs, tracks, ks, floor)
        const sorted = [...new Set(ks)].sort((a, b) => a - b)
        tracks.forEach((prices, t) => {
          const ref = refScore(reqs, prices, sorted, floor)
          const got = s.score(t)
          expect(got.evaluated).toEqual(ref.evaluated)
          expect(got.included).toEqual(ref.included)
          expect(got.delay).toEqual(ref.delay)
          sorted.forEach((_, x) => {
            const o = ref.overpayment[x] as number[]
            const sk = got.overpayment[x]
            expect(sk?.count).toBe(o.length)
            if (o.length > 0) {
              expect(sk?.quantile(0)).toBe(o[0])
              expect(sk?.quantile(0.5)).toBe(o[Math.ceil(0.5 * o.length) - 1])
              expect(sk?.quantile(0.9)).toBe(o[Math.ceil(0.9 * o.length) - 1])
              expect(sk?.quantile(1)).toBe(o[o.length - 1])
            }
          })
        })
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('a higher constant price never has a lower inclusion rate or a longer mean delay', () => {
    fc.assert(
      fc.property(fc.array(reqArb, { maxLength: 120, size: 'max' }), ksArb, priceArb, priceArb, (reqs, ks, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a]
        const s = run(reqs, [reqs.map(() => lo), reqs.map(() => hi)], ks, 100)
        const L = s.score(0)
        const H = s.score(1)
        L.included.forEach((n, x) => expect(H.included[x]).toBeGreaterThanOrEqual(n))
        expect(H.delay.included).toBeGreaterThanOrEqual(L.delay.included)
        // every txn the cheap track got in, the dear one got in no later
        if (L.delay.included > 0 && H.delay.included === L.delay.included) expect(H.delay.sum_delay).toBeLessThanOrEqual(L.delay.sum_delay)
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('evaluates max(0, N − k) blocks for each k, whatever the prices', () => {
    fc.assert(
      fc.property(fc.array(reqArb, { maxLength: 60, size: 'max' }), ksArb, (reqs, ks) => {
        const s = run(reqs, [reqs.map(() => 150)], ks, 100)
        s.ks.forEach((k, x) => expect(s.score(0).evaluated[x]).toBe(Math.max(0, reqs.length - k)))
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('inclusion within k is monotone in k, and included within k means a delay of at most k', () => {
    fc.assert(
      fc.property(fc.array(reqArb, { minLength: 1, maxLength: 60, size: 'max' }), priceArb, (reqs, p) => {
        const ks = [1, 2, 3, 5, 8]
        const s = run(reqs, [reqs.map(() => p)], ks, 100)
        const ref = refScore(reqs, reqs.map(() => p), ks, 100)
        // among the blocks evaluated at every k (t ≤ N − 1 − 8), hits can only grow with k
        const n = reqs.length
        for (let t = 0; t + 8 <= n - 1; t++) {
          let prev = false
          for (const k of ks) {
            let hit = false
            for (let j = t + 1; j <= t + k; j++) if (p >= (reqs[j] as number)) hit = true
            if (prev) expect(hit).toBe(true)
            prev = hit
          }
        }
        expect(s.score(0).included).toEqual(ref.included)
      }),
      { numRuns: NUM_RUNS },
    )
  })
})
