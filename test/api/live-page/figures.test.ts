import { describe, expect, it } from 'vitest'
import { age, aptCost, chainTime, coverageText, freshness, inverseText, median, parseExact, promiseText, reasonInWords, typicalGas, type HistoryBlock } from '../../../src/api/live-page/browser/figures.js'
import { FULLNESS_REASONS } from '../../../src/core/block.js'

const block = (gas: number, users: number): HistoryBlock => ({ block_height: '1', epoch: '1', user_txns: users, gas_used: String(gas), full: false, reason: 'under_capacity', cheapest_gas_unit_price: null, min_inclusion_price: '100' })

describe("the live page's figures", () => {
  it('keeps u64 past 2^53 exact, as digit strings', () => {
    expect(parseExact('{"a":18446744073709551615,"b":[12345678901234567,1],"c":100}')).toEqual({ a: '18446744073709551615', b: ['12345678901234567', 1], c: 100 })
  })

  it('names every fullness reason in words, none of them the code', () => {
    for (const reason of FULLNESS_REASONS) expect(reasonInWords(reason)).not.toContain('_')
    expect(reasonInWords('block_end_info')).toBe('the chain marked it full')
  })

  it('says an age at its coarsest whole unit', () => {
    expect([age(0), age(59.9), age(95), age(7200), age(86_400), age(45_000_000)]).toEqual(['0 s', '59 s', '1 min', '2 hours', '1 day', '520 days'])
  })

  it('is stale only past the threshold, and never negative when the chain is ahead of the clock', () => {
    const ts = String(1_750_000_000_000_000n)
    expect(freshness(ts, 1_750_000_030_000, 30)).toEqual({ ageSecs: 30, stale: false })
    expect(freshness(ts, 1_750_000_030_001, 30).stale).toBe(true)
    expect(freshness(ts, 1_749_999_000_000, 30)).toEqual({ ageSecs: 0, stale: false })
    expect(chainTime(ts)).toBe('2025-06-15 15:06:40 UTC')
  })

  it('prices a typical transfer from the median gas per user transaction, in APT to the octa', () => {
    expect(median([])).toBeNull()
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 2, 3])).toBe(2.5)
    expect(typicalGas([block(0, 0), block(1000, 2), block(900, 3), block(10_000, 1)])).toBe(500)
    expect(typicalGas([block(0, 0)])).toBeNull()
    expect(aptCost(500, 100)).toBe('0.0005')
    expect(aptCost(2, '18446744073709551615')).toBe('368934881474.1910323')
    expect(aptCost(100_000_000, 1)).toBe('1')
  })

  it('words the promise, its record and the window figures', () => {
    expect(promiseText(1, 0.95)).toBe('included within 1 block with p ≥ 0.95')
    expect(coverageText({ evaluated: 0, rate: null }, false)).toBe('no quote settled yet')
    expect(coverageText({ evaluated: 990, rate: 0.9232 }, true)).toBe('held 92.3% of 990 quotes · floor-bound')
    expect(inverseText(0.82, 1, 381)).toBe('window: 82.0% get in within 1 block at this price; 381 met the promise')
    expect(inverseText(null, 3, null)).toBe('window: no sample for this price; no price met the promise')
  })
})
