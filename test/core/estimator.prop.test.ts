import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { BlockInput } from '../../src/core/block.js'
import { InvalidBlockError } from '../../src/core/errors.js'
import { createEstimator, type Estimator } from '../../src/core/estimator.js'
import { u64ToBigInt } from '../../src/core/u64.js'
import { NUM_RUNS, blockSpecArb, buildBlocks, configArb, u64Arb } from './arbitraries.js'
import { refEstimate } from './reference.js'

const asBig = (e: Estimator) => {
  const x = e.estimate()
  return {
    deprioritized_gas_estimate: u64ToBigInt(x.deprioritized_gas_estimate),
    gas_estimate: u64ToBigInt(x.gas_estimate),
    prioritized_gas_estimate: u64ToBigInt(x.prioritized_gas_estimate),
  }
}

describe('estimator properties', () => {
  it('equals the per-query re-sorting reference after every block (random configs, windows, u64 up to 2^64-1)', () => {
    fc.assert(
      fc.property(configArb, fc.array(blockSpecArb(), { maxLength: 150, size: 'max' }), ({ config, ref }, specs) => {
        const e = createEstimator(config)
        const blocks = buildBlocks(specs)
        const seen = []
        for (const b of blocks) {
          e.ingest(b.input)
          seen.push(b.ref)
          expect(asBig(e)).toEqual(refEstimate(seen, ref))
        }
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('low <= market <= aggressive and every tier >= min when prices are at least min', () => {
    const arb = configArb
      .filter(({ ref }) => ref.enabled && ref.static_override === null)
      .chain(({ config, ref }) =>
        fc.tuple(
          fc.constant({ config, ref }),
          fc.array(blockSpecArb(u64Arb.filter((p) => p >= ref.min_gas_unit_price)), { maxLength: 150, size: 'max' }),
        ),
      )
    fc.assert(
      fc.property(arb, ([{ config, ref }, specs]) => {
        const e = createEstimator(config)
        for (const b of buildBlocks(specs)) {
          e.ingest(b.input)
          const x = asBig(e)
          expect(x.deprioritized_gas_estimate <= x.gas_estimate).toBe(true)
          expect(x.gas_estimate <= x.prioritized_gas_estimate).toBe(true)
          expect(x.deprioritized_gas_estimate >= ref.min_gas_unit_price).toBe(true)
        }
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('the estimate is unchanged by txn order within a block', () => {
    fc.assert(
      fc.property(configArb, fc.array(blockSpecArb(), { minLength: 1, maxLength: 60, size: 'max' }), fc.integer(), ({ config }, specs, seed) => {
        const a = createEstimator(config)
        const b = createEstimator(config)
        let s = seed >>> 0
        const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32)
        for (const { input } of buildBlocks(specs)) {
          const n = (input.gas_unit_prices as unknown[]).length
          const order = Array.from({ length: n }, (_, i) => i)
          for (let i = n - 1; i > 0; i--) {
            const j = Math.floor(rand() * (i + 1))
            ;[order[i], order[j]] = [order[j]!, order[i]!]
          }
          const pick = <T>(xs: ArrayLike<T> | null | undefined) => (xs ? order.map((i) => xs[i] as T) : xs)
          const shuffled: BlockInput = { ...input, gas_unit_prices: pick(input.gas_unit_prices)!, gas_used: pick(input.gas_used), contract_addresses: pick(input.contract_addresses) }
          expect(b.ingest(shuffled)).toEqual(a.ingest(input))
          expect(b.estimate()).toEqual(a.estimate())
        }
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('a bad block leaves the state unchanged', () => {
    const badArb = fc.oneof(
      fc.constant((b: BlockInput) => ({ ...b, gas_unit_prices: [1, -1] })),
      fc.constant((b: BlockInput) => ({ ...b, gas_unit_prices: [18446744073709551616n] })),
      fc.constant((b: BlockInput) => ({ ...b, gas_unit_prices: [0.5] })),
      fc.constant((b: BlockInput) => ({ ...b, gas_used: [1, 2, 3, 4, 5, 6, 7, 8, 9] })),
      fc.constant((b: BlockInput) => ({ ...b, block_height: '0' })),
      fc.constant((b: BlockInput) => ({ ...b, epoch: '0' })),
      fc.constant((b: BlockInput) => ({ ...b, epoch: undefined as never })),
    )
    fc.assert(
      fc.property(configArb, fc.array(fc.tuple(blockSpecArb(), fc.option(badArb, { freq: 3 })), { maxLength: 80, size: 'max' }), ({ config }, items) => {
        const e = createEstimator(config)
        const twin = createEstimator(config)
        const blocks = buildBlocks(items.map(([s]) => s))
        blocks.forEach(({ input }, i) => {
          const bad = items[i]![1]
          if (bad !== null && e.blocksIngested > 0) {
            const before = JSON.stringify([e.history(), e.explain()], (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))
            expect(() => e.ingest(bad(input))).toThrow(InvalidBlockError)
            expect(JSON.stringify([e.history(), e.explain()], (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))).toBe(before)
          }
          e.ingest(input)
          twin.ingest(input)
          expect(e.estimate()).toEqual(twin.estimate())
        })
      }),
      { numRuns: NUM_RUNS },
    )
  })
})

describe('estimator with windows above SORTED_WINDOW_MAX (treap windows)', () => {
  it('equals the reference over a long stream', () => {
    fc.assert(
      fc.property(fc.array(blockSpecArb(fc.constantFrom(100n, 150n, 299n, 1000n, 2n ** 64n - 1n, 123456n)), { minLength: 1300, maxLength: 1300 }), (specs) => {
        const config = { low_block_history: 1030, market_block_history: 1100, aggressive_block_history: 1200, full_block_txns: 2, keep_history_across_epochs: true }
        const e = createEstimator(config)
        const ref = { ...createEstimator(config).config, min_gas_unit_price: 100n, buckets: [0n, 150n, 300n, 500n, 1000n, 3000n, 5000n, 10000n, 100000n, 1000000n], block_gas_limit: null, static_override: null }
        const blocks = buildBlocks(specs)
        const seen = []
        for (const [i, b] of blocks.entries()) {
          e.ingest(b.input)
          seen.push(b.ref)
          if (i % 97 === 0 || i === blocks.length - 1) expect(asBig(e)).toEqual(refEstimate(seen, ref))
        }
      }),
      { numRuns: Math.max(3, Math.floor(NUM_RUNS / 20)) },
    )
  })
})
