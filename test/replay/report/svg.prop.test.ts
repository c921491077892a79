import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_BUCKETS } from '../../../src/core/next-bucket.js'
import { fitScale } from '../../../src/replay/report/svg.js'
import { NUM_RUNS } from '../../helpers/replay.js'

const BUCKETS = DEFAULT_BUCKETS.map(Number)
// prices are u64: small ones near the floor, and any up to 2^64 − 1 (as the report's doubles)
const price = fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(Number))

describe('fitScale', () => {
  it('ticks the data ends, keeps every tick inside the range and labels 14px apart, and drops a bucket only where it would crowd', () => {
    fc.assert(
      fc.property(price, price, (a, b) => {
        const lo = Math.min(a, b)
        const hi = Math.max(a, b)
        const s = fitScale(lo, hi, [300, 30], { axis: 'y', marks: BUCKETS })
        const ticks = s.ticks
        expect(ticks.filter((t) => t.kind === 'data').map((t) => t.value)).toEqual(lo === hi ? [lo] : [lo, hi])
        for (let i = 0; i < ticks.length; i++) {
          const t = ticks[i] as (typeof ticks)[number]
          expect(t.value).toBeGreaterThanOrEqual(lo)
          expect(t.value).toBeLessThanOrEqual(hi)
          expect(t.label).not.toMatch(/e/)
          expect(s(t.value)).toBeGreaterThanOrEqual(30)
          expect(s(t.value)).toBeLessThanOrEqual(300)
          if (i > 0) expect(s((ticks[i - 1] as (typeof ticks)[number]).value) - s(t.value)).toBeGreaterThanOrEqual(14 - 1e-9)
        }
        for (const m of BUCKETS.filter((m) => m > lo && m < hi)) {
          const shown = ticks.some((t) => t.value === m)
          const crowded = ticks.some((t) => t.kind !== 'round' && t.value !== m && Math.abs(s(t.value) - s(m)) < 14)
          expect(shown || crowded, `bucket ${m} in [${lo}, ${hi}]`).toBe(true)
        }
        expect(s.kind).toBe(lo >= 1 ? (hi / lo >= 10 ? 'log' : 'linear') : hi >= 100 ? 'symlog' : 'linear')
      }),
      { numRuns: NUM_RUNS },
    )
  })
})
