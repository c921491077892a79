import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { BlockInput } from '../../src/core/block.js'
import { CalibratedEstimator } from '../../src/core/calibrated/calibrated-estimator.js'
import { ConformalQuotes } from '../../src/core/calibrated/conformal-quotes.js'
import { LONG_GATE_MAX } from '../../src/core/calibrated/floor-ledger.js'
import { FLOOR_GATE } from '../../src/core/calibrated/floor-rule.js'
import { blockRequirement } from '../../src/core/requirement.js'
import { priceBlock } from '../../src/core/price-block.js'
import { resolveConfig } from '../../src/core/config.js'
import { NUM_RUNS } from './arbitraries.js'
import { rng } from '../helpers/rng.js'

/** Each run replays thousands of blocks: a fifth of the property budget (at least 10) keeps the file near a second. */
const STREAM_RUNS = Math.max(10, Math.floor(NUM_RUNS / 5))

/** Scoring config of these streams: a block with 2 or more user txns is full; floor 100. */
const CONFIG = resolveConfig({ full_block_txns: 2 })

type Kind = 'iid' | 'regimes' | 'drift'

/**
 * Adversarial streams: i.i.d. congestion at a random rate; persistent regimes that switch
 * (calm ↔ congested, dwell 20–400 blocks, the congested cutoff far above the floor); and a
 * drifting cutoff level (one sine period over the stream). Full blocks' cheapest prices are continuous (not on buckets).
 * `everyBlockFull` keeps the same price processes with no block the floor gets into, so no
 * promise is ever kept by the floor alone (over-kept by construction).
 */
function stream(kind: Kind, seed: number, n: number, everyBlockFull = false): BlockInput[] {
  const r = rng(seed)
  const fullRate = 0.2 + 0.7 * r()
  let congested = false
  let dwell = 0
  const out: BlockInput[] = []
  for (let h = 1; h <= n; h++) {
    let isFull: boolean
    let level: number
    if (kind === 'iid') {
      isFull = r() < fullRate
      level = 150 + 2000 * r() ** 2
    } else if (kind === 'regimes') {
      if (dwell-- <= 0) {
        congested = !congested
        dwell = 20 + Math.floor(380 * r())
      }
      isFull = r() < (congested ? 0.95 : 0.1)
      level = (congested ? 1500 : 120) * (1 + r())
    } else {
      // the level drifts by 800 over half the stream; the noise (1,200) still reaches the recent
      // maximum often enough that a quote at the maximum is included (the guarantee's assumption)
      const phase = (h / n) * Math.PI * 2
      isFull = r() < fullRate
      level = 300 + 400 * (1 + Math.sin(phase)) + 1200 * r()
    }
    if (everyBlockFull) isFull = true
    const cheapest = Math.round(level)
    out.push({ block_height: h, epoch: 1, gas_unit_prices: isFull ? [cheapest, cheapest + 50] : r() < 0.5 ? [cheapest] : [] })
  }
  return out
}

const kindArb = fc.constantFrom<Kind>('iid', 'regimes', 'drift')

describe('calibrated estimation (adaptive conformal)', () => {
  // Miss rate = 1 − q + (α_1 − α_{T+1})/(γT) with α in [−γ(k+1), 1 + γ(k+1)] (see ConformalQuotes).
  const bound = (γ: number, k: number, T: number) => (1 + 2 * γ * (k + 1)) / (γ * T)

  it('long-run coverage converges to q on adversarial streams the floor never serves: |achieved − q| <= (1 + 2γ(k+1))/(γT) + what the clamp forgave, which stays under 2% of the outcomes', () => {
    fc.assert(
      fc.property(kindArb, fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 1, max: 10 }), fc.constantFrom(0.5, 0.8, 0.9, 0.95), (kind, seed, k, q) => {
        const γ = 0.05
        const T = 3000
        // a window longer than any regime (dwell <= 400) holds both regimes' cutoffs
        const quotes = new ConformalQuotes([{ k, q }], 1000, γ, CONFIG.min_gas_unit_price)
        for (const b of stream(kind, seed, T, true)) {
          quotes.observe(blockRequirement(priceBlock(b, CONFIG)))
          quotes.serve(0, quotes.quote(0))
        }
        const { evaluated, rate } = quotes.coverage(0)
        const { misses, hits } = quotes.forgiven(0)
        expect(evaluated).toBe(T - k)
        // the identity of ConformalQuotes.forgiven: the bound holds exactly once the clamp's share is added back
        expect(Math.abs(1 - (rate as number) - (1 - q) - (misses - hits) / evaluated)).toBeLessThanOrEqual(bound(γ, k, evaluated))
        // and that share is small: only a new record cutoff (a rising drift, a heavy tail) outruns the window's maximum
        expect((misses + hits) / evaluated).toBeLessThanOrEqual(0.02)
        expect(Math.abs((rate as number) - q)).toBeLessThanOrEqual(bound(γ, k, evaluated) + (misses + hits) / evaluated)
      }),
      { numRuns: STREAM_RUNS },
    )
  })

  // The floor rule may overdraw a promise by up to FLOOR_GATE outcomes (on the recent samples) or
  // LONG_GATE_MAX (on the floor's record since the start) before the ensemble prices it and pays them
  // back (floor-rule.ts, floor-ledger.ts): that many misses beyond the plain ACI bound.
  it('with the floor serving some blocks and tiers kept ordered, no tier falls short of its promise by more than (1 + 2γ(k+1))/(γT) + max(FLOOR_GATE, LONG_GATE_MAX)/T', () => {
    fc.assert(
      fc.property(kindArb, fc.integer({ min: 0, max: 2 ** 31 }), (kind, seed) => {
        const γ = 0.05
        const e = new CalibratedEstimator(CONFIG, { window: 1000, learning_rate: γ })
        for (const b of stream(kind, seed, 3000)) e.ingest(b)
        for (const t of e.tiers()) {
          const { evaluated, rate } = t.coverage
          expect(rate as number).toBeGreaterThanOrEqual(t.promise.q - bound(γ, t.promise.k, evaluated) - Math.max(FLOOR_GATE, LONG_GATE_MAX) / evaluated)
        }
      }),
      { numRuns: STREAM_RUNS },
    )
  })

  it('tiers are monotone after every block: deprioritized <= regular <= prioritized, all >= the floor', () => {
    fc.assert(
      fc.property(kindArb, fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }), (kind, seed, a, b, c) => {
        const e = new CalibratedEstimator(CONFIG, { window: 64, learning_rate: 0.1, deprioritized: { k: a, q: 0.6 }, regular: { k: b, q: 0.8 }, prioritized: { k: c, q: 0.97 } })
        for (const block of stream(kind, seed, 250)) {
          e.ingest(block)
          const x = e.estimate()
          expect(x.deprioritized_gas_estimate >= CONFIG.min_gas_unit_price).toBe(true)
          expect(x.deprioritized_gas_estimate <= x.gas_estimate).toBe(true)
          expect(x.gas_estimate <= x.prioritized_gas_estimate).toBe(true)
        }
      }),
      { numRuns: STREAM_RUNS },
    )
  })

  it('is deterministic: the same blocks give the same prices, tiers and coverage', () => {
    fc.assert(
      fc.property(kindArb, fc.integer({ min: 0, max: 2 ** 31 }), (kind, seed) => {
        const blocks = stream(kind, seed, 600)
        const run = () => {
          const e = new CalibratedEstimator(CONFIG, { window: 100 })
          const prices = blocks.map((b) => (e.ingest(b), e.estimate()))
          return { prices, tiers: e.tiers() }
        }
        expect(run()).toEqual(run())
      }),
      { numRuns: Math.max(1, Math.floor(NUM_RUNS / 4)) },
    )
  })

  it('a bad block leaves the state unchanged', () => {
    fc.assert(
      fc.property(kindArb, fc.integer({ min: 0, max: 2 ** 31 }), (kind, seed) => {
        const blocks = stream(kind, seed, 200)
        const e = new CalibratedEstimator(CONFIG, { window: 50 })
        blocks.slice(0, 100).forEach((b) => e.ingest(b))
        const before = { estimate: e.estimate(), tiers: e.tiers(), n: e.blocksIngested }
        expect(() => e.ingest({ block_height: 50, epoch: 1, gas_unit_prices: [] })).toThrow(/block_height/)
        expect(() => e.ingest({ block_height: 101, epoch: 1, gas_unit_prices: [-1] })).toThrow(/gas_unit_prices\[0\]/)
        expect({ estimate: e.estimate(), tiers: e.tiers(), n: e.blocksIngested }).toEqual(before)
      }),
      { numRuns: Math.max(1, Math.floor(NUM_RUNS / 4)) },
    )
  })
})
