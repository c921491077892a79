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

