import type { PromiseLearner } from '../../src/core/calibrated/promise-learner.js'
import type { U64 } from '../../src/core/u64.js'

/** Feeds `learner` requirements, serving every quote as is; returns the quotes per block. */
export function run(learner: PromiseLearner, reqs: readonly number[]): U64[][] {
  return reqs.map((r) => {
    learner.observe(r)
    return learner.promises.map((_, i) => {
      const p = learner.quote(i)
      learner.serve(i, p)
      return p
    })
  })
}

/**
 * Serves promise 0 of `quoter` on `reqs` (floor 100), scored as the benchmark's Scorer does: a
 * quote after block t is included when it is at least m = min(req_{t+1..t+k}), and then overpays
 * p − max(m, floor).
 */
export function costWithin(k: number, reqs: readonly number[], quoter: { observe(r: number): void; quote(i: number): U64; serve(i: number, p: U64): void }): { overpay: number; coverage: number } {
  const quotes = reqs.map((r) => {
    quoter.observe(r)
    const p = quoter.quote(0)
    quoter.serve(0, p)
    return p as number
  })
  let paid = 0
  let hits = 0
  let evaluated = 0
  for (let t = 0; t + k < reqs.length; t++) {
    const m = Math.min(...reqs.slice(t + 1, t + k + 1))
    evaluated++
    if ((quotes[t] as number) >= m) {
      hits++
      paid += (quotes[t] as number) - Math.max(m, 100)
    }
  }
  return { overpay: paid / hits, coverage: hits / evaluated }
}
