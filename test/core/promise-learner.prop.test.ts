import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PromiseLearner } from '../../src/core/calibrated/promise-learner.js'
import type { U64 } from '../../src/core/u64.js'
import { fcRuns } from '../budget.js'
import { rng } from '../helpers/rng.js'

/** Each run replays a stream of blocks through the ensemble: a tenth of the property budget (at least 5). */
const RUNS = fcRuns(0.1, 5)

type Kind = 'iid' | 'regimes' | 'adversarial'

/**
 * Requirements (0: not full). i.i.d.: full at a random rate, cutoff spread 150–2,150. Regimes:
 * calm ↔ congested with dwell 20–400. Adversarial: the next block's requirement is one above the
 * newest quote of the first promise whenever a coin says so (the stream reads the learner), else 0.
 */
function play(kind: Kind, seed: number, n: number, learner: PromiseLearner): void {
  const r = rng(seed)
  const rate = 0.2 + 0.7 * r()
  let congested = false
  let dwell = 0
  for (let j = 0; j < n; j++) {
    let req: number
    if (kind === 'iid') req = r() < rate ? Math.round(150 + 2000 * r() ** 2) : 0
    else if (kind === 'regimes') {
      if (dwell-- <= 0) {
        congested = !congested
        dwell = 20 + Math.floor(380 * r())
      }
      req = r() < (congested ? 0.95 : 0.1) ? Math.round((congested ? 1500 : 120) * (1 + r())) : 0
    } else req = j > 0 && r() < rate ? Number(learner.quote(0)) + 1 : 0
    learner.observe(req)
    for (let i = 0; i < learner.promises.length; i++) learner.serve(i, learner.quote(i))
  }
}

const PROMISES = [
  { k: 1, q: 0.9 },
  { k: 3, q: 0.8 },
  { k: 10, q: 0.95 },
]

describe('PromiseLearner coverage law', () => {
  it.each<Kind>(['iid', 'regimes', 'adversarial'])('%s: misses − (1 − q)·T = offset/γ_o + forgiven misses − forgiven hits, and the miss rate is within (limit/γ_o + forgiven misses)/T of 1 − q', (kind) => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 300, max: 1500 }), (seed, n) => {
        const l = new PromiseLearner(PROMISES, { floor: 100 })
        play(kind, seed, n, l)
        PROMISES.forEach(({ k, q }, i) => {
          const { evaluated: T, included } = l.coverage(i)
          const misses = T - included
          const c = l.calibration(i)
          expect(T).toBe(n - k)
          expect(misses - (1 - q) * T).toBeCloseTo(c.offset / l.outerRate + c.forgiven_misses - c.forgiven_hits, 6)
          expect(Math.abs(c.offset)).toBeLessThanOrEqual(l.offsetLimit(k) + 1e-12)
          expect(misses / T - (1 - q)).toBeLessThanOrEqual((l.offsetLimit(k) / l.outerRate + c.forgiven_misses) / T + 1e-9)
        })
      }),
      { numRuns: RUNS },
    )
  })

  it.each<Kind>(['iid', 'regimes'])('%s: no miss is forgiven (the window maximum is never beaten for k + 1 blocks in a row)', (kind) => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), (seed) => {
        const l = new PromiseLearner(PROMISES, { floor: 100 })
        play(kind, seed, 1500, l)
        PROMISES.forEach((_, i) => expect(l.calibration(i).forgiven_misses).toBe(0))
      }),
      { numRuns: RUNS },
    )
  })

  it('never quotes below the floor, and a served price is the quote', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5000 })), { minLength: 1, maxLength: 300 }), (reqs) => {
        const l = new PromiseLearner(PROMISES, { floor: 100 })
        for (const r of reqs) {
          l.observe(r)
          for (let i = 0; i < PROMISES.length; i++) {
            const p = l.quote(i) as U64
            expect(p >= 100).toBe(true)
            l.serve(i, p)
          }
        }
      }),
      { numRuns: fcRuns(0.3) },
    )
  })
})
