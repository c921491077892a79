import { describe, expect, it } from 'vitest'
import type { BlockInput } from '../../src/core/block.js'
import { DEFAULT_CALIBRATED_CONFIG, resolveCalibratedConfig } from '../../src/core/calibrated/calibrated-config.js'
import { createCalibratedEstimator } from '../../src/core/calibrated/calibrated-estimator.js'
import { ConformalQuotes } from '../../src/core/calibrated/conformal-quotes.js'
import { InvalidConfigError } from '../../src/core/errors.js'

/** Under `full_block_txns: 2`: a full block whose cheapest price is `cheapest` (requirement cheapest + 1). */
const full = (h: number, cheapest: number): BlockInput => ({ block_height: h, epoch: 1, gas_unit_prices: [cheapest, cheapest + 1000] })
/** A block that is not full (requirement 0: the floor gets in). */
const open = (h: number): BlockInput => ({ block_height: h, epoch: 1, gas_unit_prices: [] })
const CONFIG = { full_block_txns: 2 }

describe('ConformalQuotes', () => {
  it('at level q (a learning rate too small to move it), quotes the empirical q-quantile of the k-block cutoffs: the least v with ⌈q·n⌉ values <= v', () => {
    const q = new ConformalQuotes([{ k: 1, q: 0.85 }, { k: 1, q: 0.95 }], 100, 1e-9, 100)
    // nine open blocks (cutoff = the floor, 100) then one full at 500 (requirement and cutoff 501)
    for (let i = 0; i < 9; i++) q.observe(0)
    q.observe(501)
    expect(q.samples(0)).toBe(10)
    expect(q.quote(0)).toBe(100) // ⌈8.5⌉ = 9th of 10
    expect(q.quote(1)).toBe(501) // ⌈9.5⌉ = 10th of 10
  })

  it('a miss raises the level by γ·q, a hit lowers it by γ·(1 − q), each settled k blocks after its quote', () => {
    const q = new ConformalQuotes([{ k: 2, q: 0.8 }], 50, 0.1, 100)
    q.observe(0)
    q.serve(0, 100)
    q.observe(0)
    q.serve(0, 100)
    expect(q.coverage(0)).toEqual({ evaluated: 0, included: 0, rate: null })
    q.observe(301) // settles the quote after block 0 against min(req1, req2) = min(0, 301) = 0: a hit
    expect(q.coverage(0)).toEqual({ evaluated: 1, included: 1, rate: 1 })
    expect(q.level(0)).toBeCloseTo(0.8 - 0.1 * 0.2, 12)
    q.serve(0, 100)
    q.observe(301) // the quote after block 1 (100) against min(301, 301): a miss
    expect(q.coverage(0)).toEqual({ evaluated: 2, included: 1, rate: 0.5 })
    expect(q.level(0)).toBeCloseTo(0.8 - 0.1 * 0.2 + 0.1 * 0.8, 12)
  })

  it('forgets cutoffs older than its window', () => {
    const q = new ConformalQuotes([{ k: 1, q: 0.5 }], 2, 0.01, 100)
    q.observe(3000)
    q.observe(0)
    q.observe(0)
    expect(q.quote(0)).toBe(100)
  })

  it('a promise the floor keeps on the window is floor-bound', () => {
    const q = new ConformalQuotes([{ k: 1, q: 0.9 }, { k: 1, q: 0.5 }], 10, 0.01, 100)
    for (let i = 0; i < 8; i++) q.observe(0)
    q.observe(501)
    q.observe(501)
    expect(q.floorBound(0)).toBe(false) // 8 of 10 at the floor < ⌈0.9·10⌉
    expect(q.floorBound(1)).toBe(true)
  })
})

describe('CalibratedEstimator', () => {
  it('defaults: 0.9 within 10, 0.9 within 3, 0.95 within 1; window 1,000; γ 0.05', () => {
    expect(resolveCalibratedConfig()).toEqual(DEFAULT_CALIBRATED_CONFIG)
    expect(DEFAULT_CALIBRATED_CONFIG).toMatchObject({ deprioritized: { k: 10, q: 0.9 }, regular: { k: 3, q: 0.9 }, prioritized: { k: 1, q: 0.95 } })
  })

  it.each([
    [{ regular: { q: 1 } }, 'regular.q'],
    [{ prioritized: { k: 0 } }, 'prioritized.k'],
    [{ window: 0 }, 'window'],
    [{ learning_rate: 0 }, 'learning_rate'],
    [{ surprise: 1 }, 'surprise'],
    [{ regular: { k: 2, p: 0.5 } }, 'regular.p'],
  ])('a bad calibrated config %j names its key %s', (input, key) => {
    try {
      createCalibratedEstimator({}, input as never)
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidConfigError)
      expect((e as InvalidConfigError).key).toBe(key)
    }
  })

  it('answers the floor before any block and before its first complete k-block window', () => {
    const e = createCalibratedEstimator(CONFIG, { deprioritized: { k: 3 }, regular: { k: 3 }, prioritized: { k: 3 } })
    expect(e.estimate()).toEqual({ deprioritized_gas_estimate: 100, gas_estimate: 100, prioritized_gas_estimate: 100 })
    expect(e.explain().source).toBe('no_history')
    e.ingest(full(1, 500))
    e.ingest(full(2, 500))
    expect(e.estimate()).toEqual({ deprioritized_gas_estimate: 100, gas_estimate: 100, prioritized_gas_estimate: 100 })
    e.ingest(full(3, 500))
    expect(e.estimate().gas_estimate).toBe(501)
  })

  it('explain states each promise, price, online coverage, floor-bound and level; a capped tier says by whom', () => {
    const e = createCalibratedEstimator(CONFIG, { window: 50, deprioritized: { k: 1, q: 0.99 }, regular: { k: 1, q: 0.5 }, prioritized: { k: 1, q: 0.6 } })
    // the newest block is open and one block in four is full at 700: after an open block, 0.99 within 1 needs 701
    for (let h = 1; h <= 39; h++) e.ingest(h % 4 === 0 ? full(h, 700) : open(h))
    const x = e.explain()
    expect(x.as_of).toEqual({ block_height: 39, epoch: 1 })
    expect(x.blocks_ingested).toBe(39)
    expect(x.tiers.deprioritized.promise).toEqual({ k: 1, q: 0.99 })
    expect(x.tiers.prioritized.price).toBe(100) // 75% of blocks are open: the floor keeps 0.6 …
    expect(x.tiers.regular.price).toBe(100)
    expect(x.tiers.deprioritized.price).toBe(100) // … and caps the tiers below it, although 0.99 would need 701
    expect(x.tiers.deprioritized.capped_by).toBe('regular')
    expect(x.tiers.regular.capped_by).toBeNull()
    expect(x.tiers.regular.floor_bound).toBe(true)
    expect(x.tiers.deprioritized.floor_bound).toBe(false)
    expect(x.tiers.deprioritized.coverage).toEqual({ evaluated: 38, included: 29, rate: 29 / 38 }) // capped at 100: misses at the 9 full blocks after the first
    expect(x.tiers.deprioritized.level).toBeGreaterThan(0.99) // its misses raised its level
    expect(x.tiers.deprioritized.driver.state).toBe('calm')
    expect(x.tiers.deprioritized.driver.expert.window).toBeLessThanOrEqual(50)
    expect(x.tiers.deprioritized.samples).toBe(x.tiers.deprioritized.driver.samples)
  })

  it('tiers and the inverse queries answer from the same learner: priceFor(tier.k, tier.q) is the tier price, and inclusionProbability of an uncapped tier price is at least its q', () => {
    const e = createCalibratedEstimator(CONFIG, { window: 200 })
    let seed = 7
    const r = () => ((seed = (seed * 48271) % 2147483647) / 2147483647)
    for (let h = 1; h <= 600; h++) {
      e.ingest(r() < 0.4 ? full(h, 150 + Math.floor(r() * 900)) : open(h))
      if (h < 10) continue
      for (const t of e.tiers()) {
        expect(e.priceFor(t.promise.k, t.promise.q)).toBe(t.price)
        if (t.capped_by === null) expect(e.inclusionProbability(t.price, t.promise.k).probability as number).toBeGreaterThanOrEqual(t.promise.q)
      }
      // a higher q at the same horizon never asks less
      const regular = e.tiers()[1]
      expect(e.priceFor(3, 0.99) as number).toBeGreaterThanOrEqual(e.priceFor(3, 0.5) as number)
      expect(regular.promise.k).toBe(3)
    }
  })

  it('inverse queries read the newest window: inclusion probability, price for (k, q), expected wait', () => {
    // promises at k = 5 only, so k = 1, 2 and 9 are read off the window (the tiers' own horizon answers from the learner)
    const e = createCalibratedEstimator(CONFIG, { window: 8, deprioritized: { k: 5 }, regular: { k: 5 }, prioritized: { k: 5 } })
    // requirements: 0 501 0 501 501 0 0 501 (and two older blocks the window has dropped)
    ;[full(1, 9000), full(2, 9000)].forEach((b) => e.ingest(b))
    ;[open(3), full(4, 500), open(5), full(6, 500), full(7, 500), open(8), open(9), full(10, 500)].forEach((b) => e.ingest(b))
    expect(e.inclusionProbability(100, 1)).toEqual({ probability: 0.5, samples: 8 })
    expect(e.inclusionProbability(501, 1)).toEqual({ probability: 1, samples: 8 })
    expect(e.inclusionProbability(100, 2)).toEqual({ probability: 6 / 7, samples: 7 }) // only (501, 501) pairs miss
    expect(e.priceFor(1, 0.5)).toBe(100)
    expect(e.priceFor(1, 0.6)).toBe(501)
    expect(e.priceFor(9, 0.5)).toBeNull()
    // waits at 100 from each point: 1, 2, 1, 3, 2, 1, 1, censored
    expect(e.expectedWait(100)).toEqual({ blocks: 11 / 7, samples: 7, censored: 1 })
    expect(e.history(3).map((b) => b.block_height)).toEqual([8, 9, 10])
  })
})
