import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DownsampledSeries } from '../../src/replay/downsampled-series.js'
import { NUM_RUNS } from '../helpers/replay.js'

describe('DownsampledSeries', () => {
  it('draws every point while the stream fits the buckets', () => {
    const s = new DownsampledSeries(['a'], 8)
    ;[5, 1, 4].forEach((v, i) => s.push(100 + i, [v]))
    expect(s.points(0)).toEqual([
      { x: 100, y: 5 },
      { x: 101, y: 1 },
      { x: 102, y: 4 },
    ])
    expect(s.blocksPerBucket).toBe(1)
  })

  it('keeps at most 2 points per bucket, in x order, and every extreme of the full series', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 3000, size: 'large' }), fc.constantFrom(2, 4, 16, 64), (values, buckets) => {
        const s = new DownsampledSeries(['v', 'neg'], buckets)
        values.forEach((v, i) => s.push(i, [v, -v]))
        for (const series of [0, 1]) {
          const pts = s.points(series)
          expect(pts.length).toBeLessThanOrEqual(2 * buckets)
          for (let i = 1; i < pts.length; i++) expect(pts[i]!.x).toBeGreaterThan(pts[i - 1]!.x)
          const ys = values.map((v) => (series === 0 ? v : -v))
          expect(Math.max(...pts.map((p) => p.y))).toBe(Math.max(...ys))
          expect(Math.min(...pts.map((p) => p.y))).toBe(Math.min(...ys))
          for (const p of pts) expect(ys[p.x]).toBe(p.y) // every drawn point is a real one
        }
        // bucket i covers blocks [i·w, (i+1)·w): its extremes are those of that range
        const w = s.blocksPerBucket
        const pts = s.points(0)
        for (let b = 0; b * w < values.length; b++) {
          const slice = values.slice(b * w, (b + 1) * w)
          const inBucket = pts.filter((p) => p.x >= b * w && p.x < (b + 1) * w).map((p) => p.y)
          expect(Math.max(...inBucket)).toBe(Math.max(...slice))
          expect(Math.min(...inBucket)).toBe(Math.min(...slice))
        }
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('rejects an odd or tiny bucket count', () => {
    expect(() => new DownsampledSeries(['a'], 3)).toThrow(RangeError)
    expect(() => new DownsampledSeries(['a'], 0)).toThrow(RangeError)
  })
})
