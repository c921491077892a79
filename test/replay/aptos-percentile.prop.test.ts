import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createEstimator } from '../../src/core/estimator.js'
import { APTOS_PERCENTILES, AptosPercentileEstimator, percentileRank } from '../../src/replay/aptos-percentile-estimator.js'
import { NUM_RUNS } from './helpers.js'
import { blockSpecArb, buildBlocks, configArb } from '../core/arbitraries.js'

describe('AptosPercentileEstimator', () => {
  it('equals the engine after every block at percentiles 0/50/90 (random configs, epochs, u64)', () => {
    fc.assert(
      fc.property(configArb, fc.array(blockSpecArb(), { maxLength: 120, size: 'max' }), ({ config }, specs) => {
        const engine = createEstimator(config)
        const replica = new AptosPercentileEstimator(engine.config, APTOS_PERCENTILES)
        for (const b of buildBlocks(specs)) {
          engine.ingest(b.input)
          replica.ingest(b.input)
          expect(replica.estimate()).toEqual(engine.estimate())
        }
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it("percentileRank reproduces Aptos' indices: 0, len/2, len*9/10", () => {
    for (let len = 1; len <= 500; len++) {
      expect(percentileRank(len, 0)).toBe(0)
      expect(percentileRank(len, 50)).toBe(len >> 1)
      expect(percentileRank(len, 90)).toBe(Math.floor((len * 9) / 10))
      expect(percentileRank(len, 100)).toBe(len - 1)
    }
  })
})
