import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidConfigError } from '../../src/core/errors.js'
import { APTOS_PERCENTILES, createEstimator, percentileRank } from '../../src/core/estimator.js'
import { u64ToBigInt } from '../../src/core/u64.js'
import { NUM_RUNS, blockSpecArb, buildBlocks, configArb } from './arbitraries.js'
import { refEstimate } from './reference.js'

const pctArb = fc.record({ low: fc.integer({ min: 0, max: 100 }), market: fc.integer({ min: 0, max: 100 }), aggressive: fc.integer({ min: 0, max: 100 }) })

describe('estimator window ranks as percentiles', () => {
  it('equals the per-query re-sorting reference after every block at any percentiles (random configs, epochs, u64)', () => {
    fc.assert(
      fc.property(configArb, pctArb, fc.array(blockSpecArb(), { maxLength: 120, size: 'max' }), ({ config, ref }, pct, specs) => {
        const e = createEstimator(config, { percentiles: pct })
        const seen = []
        for (const b of buildBlocks(specs)) {
          e.ingest(b.input)
          seen.push(b.ref)
          const x = e.estimate()
          expect({
            deprioritized_gas_estimate: u64ToBigInt(x.deprioritized_gas_estimate),
            gas_estimate: u64ToBigInt(x.gas_estimate),
            prioritized_gas_estimate: u64ToBigInt(x.prioritized_gas_estimate),
          }).toEqual(refEstimate(seen, ref, pct))
        }
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it("percentileRank reproduces Aptos' indices: 0, len/2, len*9/10, and len-1 at 100", () => {
    for (let len = 1; len <= 500; len++) {
      expect(percentileRank(len, APTOS_PERCENTILES.low)).toBe(0)
      expect(percentileRank(len, APTOS_PERCENTILES.market)).toBe(len >> 1)
      expect(percentileRank(len, APTOS_PERCENTILES.aggressive)).toBe(Math.floor((len * 9) / 10))
      expect(percentileRank(len, 100)).toBe(len - 1)
    }
  })

  it('explain names the statistic of a non-Aptos percentile, and a bad percentile names its key', () => {
    const e = createEstimator({ full_block_txns: 1 }, { percentiles: { market: 60 } })
    for (let h = 1; h <= 5; h++) e.ingest({ block_height: h, epoch: 1, gas_unit_prices: [100 * h] })
    expect(e.explain().tiers?.regular.statistic).toBe('p60')
    expect(e.explain().tiers?.deprioritized.statistic).toBe('min')
    expect(() => createEstimator({}, { percentiles: { aggressive: 101 } })).toThrow(InvalidConfigError)
    try {
      createEstimator({}, { percentiles: { low: 1.5 } })
    } catch (err) {
      expect((err as InvalidConfigError).key).toBe('percentiles.low')
    }
  })
})
