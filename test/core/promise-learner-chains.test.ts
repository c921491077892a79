import { describe, expect, it } from 'vitest'
import { ConformalQuotes } from '../../src/core/calibrated/conformal-quotes.js'
import { PromiseLearner } from '../../src/core/calibrated/promise-learner.js'
import { resolveConfig } from '../../src/core/config.js'
import { priceBlock } from '../../src/core/price-block.js'
import { blockRequirement } from '../../src/core/requirement.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import { generateChain } from '../../src/sim/index.js'
import { costWithin, run } from '../helpers/promise-learner.js'

// The learner's regressions on the calibration benchmark's own chains (3,000 generated blocks
// each): they run in `npm run test:integration` (vitest.config.ts), the generation being most of
// their time.

/** The calibration benchmark's chain of a scenario (3,000 blocks) as requirements. */
function benchChain(scenario: 'switching' | 'iid-50' | 'drift', seed: number): number[] {
  const config = resolveConfig()
  // One block at a time: holding the whole generated chain makes each major GC mark all of it (about 3x the time).
  const reqs: number[] = []
  for (const g of generateChain({ blocks: 3000, seed, scenario })) reqs.push(Number(blockRequirement(priceBlock(parseBlockJson(g.block), config))))
  return reqs
}

/**
 * The learner keeps `promise` on `reqs` within [q − 1, q + 2] points and pays at most 1.1x the
 * plain ACI baseline's mean overpayment (window 120, γ 0.005): issue 20's per-promise checks.
 */
function expectKeptWithinAci(reqs: readonly number[], promise: { k: number; q: number }): void {
  const l = costWithin(promise.k, reqs, new PromiseLearner([promise], { floor: 100 }))
  const aci = costWithin(promise.k, reqs, new ConformalQuotes([promise], 120, 0.005, 100))
  expect(l.coverage).toBeGreaterThanOrEqual(promise.q - 0.01)
  expect(l.coverage).toBeLessThanOrEqual(promise.q + 0.02)
  expect(l.overpay).toBeLessThanOrEqual(1.1 * aci.overpay)
}

describe('PromiseLearner on the calibration benchmark\'s chains', () => {
  it('does not pay back at a premium what the long floor rule may overdraw: on a regime-switching chain whose floor nearly keeps the promise, coverage ends within [q − 1, q + 2] points', () => {
    // the chain of the calibration benchmark where the learner paid its busy regimes back to q and the calm tail over-kept it (92.1%).
    // (Seed 5's 0.8 within 1 block is no longer held to it: there, even quoting only the floor from block 2,079 on, a tier ends
    // within q + 2 points only if it was about 4 points short at that block, far beyond the plan a run that ends busy allows.)
    const l = new PromiseLearner([{ k: 1, q: 0.9 }], { floor: 100 })
    run(l, benchChain('switching', 3))
    const rate = l.coverage(0).rate as number
    expect(rate).toBeGreaterThanOrEqual(0.9 - 0.01)
    expect(rate).toBeLessThanOrEqual(0.9 + 0.02)
  })

  it('holds the floor through the busy regimes of a chain whose floor keeps 0.8 over the run: above the floor on at most 1% of blocks, coverage within [q − 1, q + 2] points', () => {
    // the switching chains of the calibration benchmark at seeds 2 (0.8 within 10) and 5 (0.8 within 3): with the long allowance
    // and banked share of q = 0.9 the learner left the floor in busy regimes (3.9% and 3.5% of blocks) and over-kept the promise
    for (const [seed, k] of [[2, 10], [5, 3]] as const) {
      const l = new PromiseLearner([{ k, q: 0.8 }], { floor: 100 })
      const quotes = run(l, benchChain('switching', seed)).map(([p]) => p as number)
      expect(quotes.filter((p) => p > 100).length / quotes.length).toBeLessThanOrEqual(0.01)
      const rate = l.coverage(0).rate as number
      expect(rate).toBeGreaterThanOrEqual(0.8 - 0.01)
      expect(rate).toBeLessThanOrEqual(0.8 + 0.02)
    }
  })

  it('plans no debt beyond the tolerance and does not spend a calm stretch twice: on a regime-switching chain that ends busy, coverage ends within [q − 1, q + 2] points at k = 3 and 10', () => {
    // seed 4 ends in 800 busy blocks after long calm ones: the learner aimed at the long floor allowance (up to 90 outcomes) and
    // its experts' levels, sunk below q by the calm stretches' hits, discounted the busy tail too (0.9@3 88.6%, 0.95@3 93.3%,
    // 0.9@10 88.2%, 0.95@10 93.95% before)
    const promises = [0.9, 0.95].flatMap((q) => [3, 10].map((k) => ({ k, q })))
    const l = new PromiseLearner(promises, { floor: 100 })
    run(l, benchChain('switching', 4))
    promises.forEach(({ q }, i) => {
      const rate = l.coverage(i).rate as number
      expect(rate).toBeGreaterThanOrEqual(q - 0.01)
      expect(rate).toBeLessThanOrEqual(q + 0.02)
    })
  })

  it('raises only an unconditioned expert\'s level while owing: on a stationary chain a conditioned expert\'s level below q is its own, and 0.8 within 3 pays at most 1.1x the plain ACI baseline', () => {
    // the half-full i.i.d. chain of the calibration benchmark at seed 3: raising the conditioned experts' levels while the
    // offset swung above the plan paid 1.21x the baseline here, at the same coverage
    expectKeptWithinAci(benchChain('iid-50', 3), { k: 3, q: 0.8 })
  })

  it('raises levels while owing only after a calm stretch that can sink them: on a drifting chain whose calm blocks come one at a time, 0.95 within 10 pays at most 1.1x the plain ACI baseline', () => {
    // the drift chain of the calibration benchmark at seed 5 (13 calm blocks, none next to another): raising the scaled
    // expert's level while the offset owed paid 1.11x the baseline here, at the promised coverage
    expectKeptWithinAci(benchChain('drift', 5), { k: 10, q: 0.95 })
  })
})
