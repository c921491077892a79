import fc from 'fast-check'
import { quantileSorted } from 'simple-statistics'
import { describe, expect, it } from 'vitest'
import { EXACT_DISTINCT_LIMIT, QuantileSketch, RELATIVE_ACCURACY } from '../../src/replay/quantile-sketch.js'
import { NUM_RUNS, rng } from '../helpers/replay.js'

const nearestRank = (sorted: number[], q: number) => sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] as number

describe('QuantileSketch', () => {
  it('answers null when empty and the lower middle value as the median of an even count', () => {
    const s = new QuantileSketch()
    expect(s.quantile(0.5)).toBeNull()
    expect(s.mean).toBeNull()
    for (const v of [400, 0, 50, 50]) s.add(v)
    expect(s.quantile(0.5)).toBe(50)
    expect(s.quantile(0.9)).toBe(400)
    expect(s.quantile(0)).toBe(0)
    expect(s.mean).toBe(125)
  })

  it('is exact (nearest rank) while the distinct values fit', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -500, max: 5000 }), { minLength: 1, maxLength: 300, size: 'max' }), fc.double({ min: 0, max: 1, noNaN: true }), (values, q) => {
        const s = new QuantileSketch()
        for (const v of values) s.add(v)
        const sorted = [...values].sort((a, b) => a - b)
        expect(s.isExact).toBe(true)
        expect(s.quantile(q)).toBe(nearestRank(sorted, q))
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it(`stays within relative error ${RELATIVE_ACCURACY} after switching to bins`, () => {
    const r = rng(7)
    const s = new QuantileSketch()
    const values: number[] = []
    for (let i = 0; i < 50_000; i++) {
      const v = i % 10 === 0 ? 0 : Math.round(10 ** (r() * 6)) * (r() < 0.05 ? -1 : 1)
      values.push(v)
      s.add(v)
    }
    expect(s.isExact).toBe(false)
    const sorted = values.sort((a, b) => a - b)
    for (const q of [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99]) {
      const truth = nearestRank(sorted, q)
      const got = s.quantile(q) as number
      expect(Math.abs(got - truth)).toBeLessThanOrEqual(Math.abs(truth) * RELATIVE_ACCURACY + 1e-9)
      // and close to the interpolated quantile of simple-statistics, as a sanity check
      expect(Math.abs(got - quantileSorted(sorted, q))).toBeLessThanOrEqual(Math.abs(truth) * 0.05 + 1)
    }
  })

  it(`switches to bins only past ${EXACT_DISTINCT_LIMIT} distinct values, and keeps the count`, () => {
    const s = new QuantileSketch()
    for (let i = 1; i <= EXACT_DISTINCT_LIMIT; i++) s.add(i)
    expect(s.isExact).toBe(true)
    s.add(EXACT_DISTINCT_LIMIT + 1)
    expect(s.isExact).toBe(false)
    expect(s.count).toBe(EXACT_DISTINCT_LIMIT + 1)
  })

  it('gives an ascending CDF ending at 1 with at most the points asked for', () => {
    const s = new QuantileSketch()
    for (let i = 0; i < 1000; i++) s.add(i % 37)
    const cdf = s.cdf(10)
    expect(cdf.length).toBeLessThanOrEqual(10)
    expect(cdf[cdf.length - 1]).toEqual({ value: 36, fraction: 1 })
    for (let i = 1; i < cdf.length; i++) expect(cdf[i]!.value).toBeGreaterThan(cdf[i - 1]!.value)
  })

  it('rejects a value that is not finite', () => {
    expect(() => new QuantileSketch().add(Number.NaN)).toThrow(RangeError)
  })
})
