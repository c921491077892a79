import { describe, expect, it } from 'vitest'
import { DEFAULT_BUCKETS } from '../../../src/core/next-bucket.js'
import { fitScale, percent, pushBelow, readableNumber, wrap } from '../../../src/replay/report/svg.js'

const BUCKETS = DEFAULT_BUCKETS.map(Number)
const labels = (lo: number, hi: number) => fitScale(lo, hi, [300, 30], { axis: 'y', marks: BUCKETS }).ticks.map((t) => t.label)

describe('fitScale (price axis)', () => {
  it('ticks at the data range and at every mempool bucket inside it, log scale over decades', () => {
    const s = fitScale(100, 5000, [300, 30], { axis: 'y', marks: BUCKETS })
    expect(s.kind).toBe('log')
    expect(s.ticks.map((t) => [t.label, t.kind])).toEqual([
      ['100', 'data'],
      ['150', 'mark'],
      ['300', 'mark'],
      ['500', 'mark'],
      ['1,000', 'mark'],
      ['3,000', 'mark'],
      ['5,000', 'data'],
    ])
  })

  it('stays linear under a decade, and drops a bucket whose label would touch the data end', () => {
    const s = fitScale(100, 151, [300, 30], { axis: 'y', marks: BUCKETS })
    expect(s.kind).toBe('linear')
    expect(labels(100, 151)).toContain('151')
    expect(labels(100, 151)).not.toContain('150')
    expect(labels(100, 151)[0]).toBe('100')
  })

  it('includes 0 on a symmetric log scale when the floor is 0', () => {
    const s = fitScale(0, 1_000_000, [300, 30], { axis: 'y', marks: BUCKETS })
    expect(s.kind).toBe('symlog')
    expect(s.ticks[0]).toEqual({ value: 0, label: '0', kind: 'data' })
    expect(s.ticks.at(-1)).toEqual({ value: 1_000_000, label: '1,000,000', kind: 'data' })
    expect(s.ticks.some((t) => t.kind === 'mark')).toBe(true)
  })

  it('draws a single value mid-axis with one tick', () => {
    const s = fitScale(100, 100, [300, 30], { axis: 'y', marks: BUCKETS })
    expect(s(100)).toBeCloseTo(165)
    expect(s.ticks.filter((t) => t.kind === 'data')).toEqual([{ value: 100, label: '100', kind: 'data' }])
  })

  it('rejects a reversed or non-finite range', () => {
    expect(() => fitScale(5, 1, [0, 1], { axis: 'x' })).toThrow(RangeError)
    expect(() => fitScale(0, Number.NaN, [0, 1], { axis: 'x' })).toThrow(RangeError)
  })
})

describe('labels', () => {
  it('readable numbers: thousands separators, no exponent below 10^10', () => {
    expect([0, 150, 1000, 100000, 1_000_000, 2_000_000_001, 0.5, 49.87, -5].map(readableNumber)).toEqual(['0', '150', '1,000', '100,000', '1,000,000', '2,000,000,001', '0.5', '49.9', '−5'])
    expect([1.5e12, 2 ** 64 - 1].map(readableNumber)).toEqual(['1.5T', '18.4E'])
  })

  it('percentages keep the decimals they need', () => {
    expect([0.9, 0.975, 1, 0.99].map(percent)).toEqual(['90%', '97.5%', '100%', '99%'])
  })

  it('long strategy names wrap after a colon, at most 3 lines', () => {
    expect(wrap('aptos:low=5:market=20:aggressive=60', 14)).toEqual(['aptos:low=5:', 'market=20:', 'aggressive=60'])
    expect(wrap('geth', 14)).toEqual(['geth'])
    const cut = wrap('a:b:c:d:e', 2)
    expect(cut).toHaveLength(3)
    expect(cut[2]).toBe('c…')
  })
})

describe('pushBelow (label placement)', () => {
  it('ends where a label a line below another differs from it by just under a line in floating point', () => {
    // Found in a report: 252.8160175854603 + 12 gives a y whose distance back is 11.99999999999996.
    const placed = [{ y: 252.8160175854603 }]
    const y = pushBelow(252.8160175854603, placed, () => true)
    expect(y).toBe(252.8160175854603 + 12)
    expect(pushBelow(y, placed, () => true)).toBe(y)
  })

  it('moves a label below every label it overlaps, and past none it does not', () => {
    const placed = [{ y: 100 }, { y: 110 }, { y: 300 }]
    expect(pushBelow(105, placed, () => true)).toBe(122)
    expect(pushBelow(105, placed, () => false)).toBe(105)
    expect(pushBelow(150, placed, () => true)).toBe(150)
  })
})
