import { describe, expect, it } from 'vitest'
import { ConformalQuotes } from '../../src/core/calibrated/conformal-quotes.js'
import { rateAtHorizon } from '../../src/core/calibrated/expert-ensemble.js'
import { plannedDebt } from '../../src/core/calibrated/floor-rule.js'
import { PromiseLearner } from '../../src/core/calibrated/promise-learner.js'
import type { U64 } from '../../src/core/u64.js'
import { resolveConfig } from '../../src/core/config.js'
import { priceBlock } from '../../src/core/price-block.js'
import { blockRequirement } from '../../src/core/requirement.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import { generateChain } from '../../src/sim/index.js'
import { rng } from '../helpers/rng.js'

/** Feeds requirements, serving every quote as is; returns the quotes per block. */
function run(learner: PromiseLearner, reqs: readonly number[]): U64[][] {
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
 * Serves promise 0 of `quoter` on `reqs` (floor 100): its coverage within one block and the mean
 * overpayment p − max(req, floor) of the included quotes.
 */
function costOf(reqs: readonly number[], quoter: { observe(r: number): void; quote(i: number): U64; serve(i: number, p: U64): void }): { overpay: number; coverage: number } {
  let paid = 0
  let hits = 0
  let prev: number | null = null
  for (const r of reqs) {
    if (prev !== null && prev >= r) {
      hits++
      paid += prev - Math.max(r, 100)
    }
    quoter.observe(r)
    prev = quoter.quote(0) as number
    quoter.serve(0, prev)
  }
  return { overpay: paid / hits, coverage: hits / (reqs.length - 1) }
}

/** The calibration benchmark's chain of a scenario (3,000 blocks) as requirements. */
function benchChain(scenario: 'switching' | 'iid-50' | 'drift', seed: number): number[] {
  const config = resolveConfig()
  // One block at a time: holding the whole generated chain makes each major GC mark all of it (about 3x the time).
  const reqs: number[] = []
  for (const g of generateChain({ blocks: 3000, seed, scenario })) reqs.push(Number(blockRequirement(priceBlock(parseBlockJson(g.block), config))))
  return reqs
}

/**
 * Serves promise 0 of `quoter` on `reqs` (floor 100), scored as the benchmark's Scorer does: a
 * quote after block t is included when it is at least m = min(req_{t+1..t+k}), and then overpays
 * p − max(m, floor).
 */
function costWithin(k: number, reqs: readonly number[], quoter: { observe(r: number): void; quote(i: number): U64; serve(i: number, p: U64): void }): { overpay: number; coverage: number } {
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

describe('PromiseLearner', () => {
  it('answers the floor before any sample and on a chain the floor always serves', () => {
    const l = new PromiseLearner([{ k: 3, q: 0.9 }], { floor: 100 })
    expect(l.quote(0)).toBe(100)
    expect(run(l, new Array(500).fill(0)).every(([p]) => p === 100)).toBe(true)
    expect(l.coverage(0)).toEqual({ evaluated: 497, included: 497, rate: 1 })
    expect(l.explain(0).floor_bound).toBe(true)
  })

  it('is deterministic: the same blocks give the same quotes', () => {
    const reqs = Array.from({ length: 800 }, (_, i) => ((i * 7919) % 13 < 6 ? 150 + ((i * 104729) % 900) : 0))
    const promises = [
      { k: 1, q: 0.9 },
      { k: 3, q: 0.8 },
    ]
    expect(run(new PromiseLearner(promises, { floor: 100 }), reqs)).toEqual(run(new PromiseLearner(promises, { floor: 100 }), reqs))
  })

  it('quotes the floor in calm stretches of a chain where the floor keeps the promise, and prices busy stretches', () => {
    // every 25th block starts a 2-block burst at 1,000: the floor keeps 0.9 within 3 blocks
    const reqs = Array.from({ length: 2000 }, (_, i) => (i % 25 < 2 ? 1001 : 0))
    const l = new PromiseLearner([{ k: 3, q: 0.9 }], { floor: 100 })
    const quotes = run(l, reqs).map(([p]) => p as number)
    const above = quotes.slice(500).filter((p) => p > 100).length
    expect(above / 1500).toBeLessThanOrEqual(0.01)
  })

  it('keeps a promise the floor keeps at the floor whatever the state, and leaves the floor once the floor clearly fails', () => {
    // full blocks at 500 come in pairs, one pair in 12 blocks: the floor meets 0.8 within 1 block
    // at 10 of 12 submission points, though after a pair's first block it never does
    const reqs = Array.from({ length: 1500 }, (_, i) => (i % 12 < 2 ? 501 : 0))
    const l = new PromiseLearner([{ k: 1, q: 0.8 }], { floor: 100 })
    const quotes = run(l, reqs).map(([p]) => p as number)
    expect(quotes.slice(500).every((p) => p === 100)).toBe(true)
    expect(l.explain(0).floor_bound).toBe(true)
    // a chain where the floor meets 0.8 within 1 only half the time (after each full block): the
    // blocks after a calm one are priced often enough to keep 0.8
    const busy = new PromiseLearner([{ k: 1, q: 0.8 }], { floor: 100 })
    const priced = run(busy, Array.from({ length: 1500 }, (_, i) => (i % 2 === 0 ? 501 : 0))).map(([p]) => p as number)
    expect(priced.slice(500).filter((p) => p > 100).length).toBeGreaterThan(200)
    expect(busy.coverage(0).rate as number).toBeGreaterThanOrEqual(0.79)
  })

  it('spends hits already banked on floor quotes: after a calm stretch, a busy one the floor fails is quoted at the floor while 30 banked outcomes remain', () => {
    // 200 busy blocks first, so the floor's record since the start fails 0.9 and only the banked surplus can hold the floor;
    // the 400 calm blocks after them bank hits beyond q = 0.9; then every block is full at 500
    const l = new PromiseLearner([{ k: 1, q: 0.9 }], { floor: 100, windows: [50], learningRates: [0.01] })
    const quotes = run(l, [...Array<number>(200).fill(501), ...Array<number>(400).fill(0), ...Array<number>(60).fill(501)]).map(([p]) => p as number)
    // the floor while the surplus lasts, then the expert's price …
    expect(quotes.slice(600, 633).every((p) => p === 100)).toBe(true)
    expect(quotes[633]).toBe(501)
    // … and the floor again whenever the banked surplus is back at 30 outcomes, though the floor met none of the recent samples
    expect(quotes.slice(633).flatMap((p, i) => (p === 100 ? [633 + i] : []))).toEqual([640, 650])
    expect(l.calibration(0).offset / l.outerRate).toBeGreaterThan(-30)
  })

  it('keeps a promise at the floor through a busy regime while the floor keeps it over the long run, and its record since the start is what says so', () => {
    // 1,500 calm blocks, then 150 full ones: the window of 1,000 samples says the floor fails 0.9 within 3 blocks, but since
    // the start it misses 148 of 1,648 (9%): the long-run floor rule holds the floor through the regime
    const reqs = [...Array<number>(1500).fill(0), ...Array<number>(150).fill(501)]
    const l = new PromiseLearner([{ k: 3, q: 0.9 }], { floor: 100 })
    const quotes = run(l, reqs).map(([p]) => p as number)
    expect(quotes.every((p) => p === 100)).toBe(true)
    expect(l.explain(0).floor_bound).toBe(true)
    // once the floor's deficit since the start passes the long allowance, the learner prices the busy regime
    const longer = new PromiseLearner([{ k: 3, q: 0.9 }], { floor: 100 })
    const priced = run(longer, [...reqs, ...Array<number>(200).fill(501)]).map(([p]) => p as number)
    expect(priced.slice(1650).some((p) => p > 100)).toBe(true)
  })

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

  it('conditions on the state: after a burst, calm blocks are quoted at the floor at once', () => {
    // calm chain, with a 30-block burst at 2,000 every 300 blocks: 0.9 within 1 needs the burst priced
    const reqs = Array.from({ length: 3000 }, (_, i) => (i % 300 < 30 ? 2001 : 0))
    const l = new PromiseLearner([{ k: 1, q: 0.95 }], { floor: 100 })
    const quotes = run(l, reqs).map(([p]) => p as number)
    // the second block after each late burst ends: calm state, quoted at the floor
    for (const end of [1830, 2130, 2430, 2730]) expect(quotes[end + 1]).toBe(100)
    // bursts are priced often enough to keep the promise overall, not more (the calm hits are spent in the bursts)
    const rate = l.coverage(0).rate as number
    expect(rate).toBeGreaterThanOrEqual(0.94)
    expect(rate).toBeLessThanOrEqual(0.98)
    expect(quotes.some((p) => p >= 2001)).toBe(true)
    expect(l.explain(0).state).toBe('calm')
  })

  it('prices a drifting market at its going rate: cheaper than a plain window quantile at the same promise', () => {
    // every block full; the going rate swings between 1,000 and 3,000 over 1,500 blocks, each block ±10% around it
    const reqs = Array.from({ length: 4500 }, (_, i) => Math.round((2000 - 1000 * Math.cos((2 * Math.PI * i) / 1500)) * (0.9 + 0.2 * (((i * 7919) % 101) / 100))))
    const learner = new PromiseLearner([{ k: 1, q: 0.9 }], { floor: 100 })
    const l = costOf(reqs, learner)
    const aci = costOf(reqs, new ConformalQuotes([{ k: 1, q: 0.9 }], 120, 0.005, 100))
    expect(l.coverage).toBeGreaterThanOrEqual(0.89)
    expect(aci.coverage).toBeGreaterThanOrEqual(0.88)
    expect(l.overpay).toBeLessThan(0.8 * aci.overpay)
    expect(learner.explain(0).expert.scaled).toBe(true)
  })

  it('conditions on the tercile of the newest cutoff: a market whose level persists is priced at its level, cheaper than a plain window quantile', () => {
    // nine blocks in ten full; the cutoff level flips between about 500 and 2,000 with chance 0.1 a block, so a high cutoff says the next is likely high
    const r = rng(7)
    let high = false
    const reqs = Array.from({ length: 3000 }, () => {
      if (r() < 0.1) high = !high
      return r() < 0.1 ? 0 : Math.round((high ? 2000 : 500) * (0.8 + 0.4 * r()))
    })
    const learner = new PromiseLearner([{ k: 1, q: 0.9 }], { floor: 100 })
    const l = costOf(reqs, learner)
    const aci = costOf(reqs, new ConformalQuotes([{ k: 1, q: 0.9 }], 120, 0.005, 100))
    expect(l.coverage).toBeGreaterThanOrEqual(0.89)
    expect(l.overpay).toBeLessThan(0.9 * aci.overpay)
    const e = learner.explain(0)
    expect(e.expert.conditioned).toBe(true)
    expect(e.state === 'calm' ? [null] : ['low', 'mid', 'high']).toContain(e.cutoff_tercile)
  })

  it('steps each expert γ/k at horizon k, not below the slowest step, so the level of a fast expert does not swing past the window maximum on i.i.d. blocks at k = 10', () => {
    expect(rateAtHorizon(0.05, 0.005, 1)).toBe(0.05)
    expect(rateAtHorizon(0.05, 0.005, 2)).toBe(0.025)
    expect(rateAtHorizon(0.05, 0.005, 10)).toBe(0.005)
    expect(rateAtHorizon(0.05, 0.005, 100)).toBe(0.005)
    expect(rateAtHorizon(0.005, 0.005, 3)).toBe(0.005)
    // nine blocks in ten full, a backlog carrying some of the price into the next blocks; with γ = 0.05 at k = 10 the served expert's level reached 1.55
    for (const seed of [3, 4]) {
      const r = rng(seed)
      let backlog = 0
      const reqs = Array.from({ length: 3000 }, () => {
        backlog = Math.max(0, backlog * 0.9 + (r() < 0.9 ? 1 : -3))
        return r() < 0.1 ? 0 : Math.round(100 + 60 * backlog * r() + 200 * r())
      })
      const l = new PromiseLearner([{ k: 10, q: 0.8 }], { floor: 100 })
      let highest = -Infinity
      for (const q of reqs) {
        l.observe(q)
        l.serve(0, l.quote(0))
        highest = Math.max(highest, l.explain(0).level)
      }
      expect(highest).toBeLessThanOrEqual(1)
      expect(Math.abs((l.coverage(0).rate as number) - 0.8)).toBeLessThan(0.01)
      expect(l.explain(0).expert.learning_rate).toBe(0.005)
    }
  })

  it('plans a debt of at most 1% of the blocks seen, less the quotes in flight, and never a surplus', () => {
    expect(plannedDebt(3000, 3)).toBeCloseTo(26, 12)
    expect(plannedDebt(3000, 10)).toBeCloseTo(19, 12)
    expect(plannedDebt(400, 3)).toBe(0)
    expect(plannedDebt(0, 1)).toBe(0)
    for (let b = 0; b < 5000; b += 7) expect(plannedDebt(b + 7, 3)).toBeGreaterThanOrEqual(plannedDebt(b, 3))
  })

  it('explains which expert and state drove a quote', () => {
    const l = new PromiseLearner([{ k: 1, q: 0.9 }], { floor: 100, windows: [50, 200], learningRates: [0.01] })
    run(l, Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? 300 : 0)))
    const e = l.explain(0)
    expect([50, 200]).toContain(e.expert.window)
    expect(e.expert.learning_rate).toBe(0.01)
    expect(e.state).toBe('calm') // block 299 was not full
    expect(e.samples).toBeGreaterThan(0)
  })

  it('clear() forgets everything', () => {
    const l = new PromiseLearner([{ k: 2, q: 0.9 }], { floor: 100 })
    const reqs = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? 500 : 0))
    const first = run(l, reqs)
    l.clear()
    expect(l.coverage(0).evaluated).toBe(0)
    expect(run(l, reqs)).toEqual(first)
  })
})
