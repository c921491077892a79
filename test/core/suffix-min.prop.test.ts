import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SuffixMin } from '../../src/core/suffix-min.js'
import { NUM_RUNS } from './arbitraries.js'

describe('SuffixMin', () => {
  it('min(d) equals the minimum of the newest d values, for every d, after every push', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }), fc.array(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.bigInt({ min: 0n, max: 2n ** 64n })), { maxLength: 200, size: 'max' }), (cap, values) => {
        const s = new SuffixMin<number | bigint>(cap)
        values.forEach((v, i) => {
          s.push(v)
          for (let d = 1; d <= Math.min(cap, i + 1); d++) {
            const tail = values.slice(i + 1 - d, i + 1)
            const naive = tail.reduce((a, b) => (b < a ? b : a))
            expect(BigInt(s.min(d))).toBe(BigInt(naive)) // mixed forms here; equal values may differ in form
          }
        })
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('rejects a capacity below 1', () => {
    expect(() => new SuffixMin(0)).toThrow(RangeError)
  })
})
