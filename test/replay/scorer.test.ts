import { describe, expect, it } from 'vitest'
import { priceBlock } from '../../src/core/price-block.js'
import { Backtest } from '../../src/replay/backtest.js'
import { UNREACHABLE, blockRequirement } from '../../src/core/requirement.js'
import { Scorer } from '../../src/replay/scorer.js'
import { SMALL, fixedStrategy, full, open } from '../helpers/replay.js'

describe('block requirement', () => {
  it('is 0 for a block that is not full and cheapest + 1 for a full one', () => {
    expect(blockRequirement(priceBlock(open(1, 500), SMALL))).toBe(0)
    expect(blockRequirement(priceBlock(open(1), SMALL))).toBe(0)
    expect(blockRequirement(priceBlock(full(1, 150), SMALL))).toBe(151)
  })

  it('stays exact past 2^53 and is 2^64 when the cheapest paid 2^64 - 1', () => {
    expect(blockRequirement(priceBlock(full(1, 2n ** 53n - 1n), SMALL))).toBe(2n ** 53n)
    expect(blockRequirement(priceBlock(full(1, 2n ** 64n - 1n), SMALL))).toBe(UNREACHABLE)
    expect(UNREACHABLE).toBe(2n ** 64n)
  })
})

describe('scorer on hand-made blocks', () => {
  it('includes a price in a full block only when strictly above the cheapest (equal is not enough)', () => {
    const s = new Scorer(3, [1], 100)
    s.push(0, [149, 150, 151]) // block 0; the prices are submitted after it
    s.push(151, [0, 0, 0]) // block 1: full, cheapest 150
    s.close()
    expect([0, 1, 2].map((t) => s.score(t).included[0])).toEqual([0, 0, 1])
    expect([0, 1, 2].map((t) => s.score(t).evaluated[0])).toEqual([1, 1, 1])
  })

  it('includes any price in a block that was not full', () => {
    const s = new Scorer(1, [1], 100)
    s.push(151, [0])
    s.push(0, [0])
    s.close()
    expect(s.score(0).included[0]).toBe(1)
  })

  it('measures the delay until the first block that includes the price', () => {
    const s = new Scorer(1, [1, 2, 3], 100)
    s.push(0, [150]) // t=0 submits 150
    s.push(151, [150]) // full at 150: t=0 waits; t=1 submits 150
    s.push(501, [150]) // full at 500: both wait; t=2 submits
    s.push(150, [150]) // full at 149: t=0 (delay 3), t=1 (2), t=2 (1) included
    s.close()
    const d = s.score(0).delay
    expect(d).toEqual({ included: 3, sum_delay: 6, max_delay: 3, censored: 1 }) // t=3 never had a next block
    const sc = s.score(0)
    expect(sc.evaluated).toEqual([3, 2, 1]) // N − k for N = 4
    expect(sc.included).toEqual([1, 1, 1]) // k=1: only t=2; k=2: t=1 (blocks 2,3); k=3: t=0 (blocks 1..3)
  })

  it('evaluates only blocks t with t + k inside the data (N − k of them)', () => {
    const s = new Scorer(1, [1, 3, 10], 100)
    for (let i = 0; i < 12; i++) s.push(0, [100])
    s.close()
    expect(s.score(0).evaluated).toEqual([11, 9, 2])
    const short = new Scorer(1, [1, 3, 10], 100)
    for (let i = 0; i < 3; i++) short.push(0, [100])
    expect(short.score(0).evaluated).toEqual([2, 0, 0])
  })

  it('charges overpayment against max(floor, least requirement within k)', () => {
    const s = new Scorer(1, [1, 2], 100)
    s.push(0, [300]) // t=0 at 300
    s.push(201, [300]) // full, cheapest 200
    s.push(0, [300]) // not full: p* = floor
    s.close()
    const sc = s.score(0)
    // k=1: t=0 → block 1 needs 201 → 99; t=1 → block 2 not full → p* = 100 → 200
    expect([sc.overpayment[0]?.quantile(0), sc.overpayment[0]?.quantile(1)]).toEqual([99, 200])
    // k=2: t=0 → blocks 1,2: least requirement 0 → p* = floor = 100 → 200
    expect(sc.overpayment[1]?.quantile(0.5)).toBe(200)
    expect(sc.overpayment_ratio[0]?.quantile(0)).toBeCloseTo(99 / 201, 12)
  })

  it('scores an inclusion-only track like a detailed one, without overpayment or delay figures', () => {
    const s = new Scorer(2, [1, 2], 100, (t) => t === 0)
    for (const [req, p] of [[0, 150], [151, 150], [150, 150], [0, 150]] as const) s.push(req, [p, p])
    s.close()
    expect(s.score(1).included).toEqual(s.score(0).included)
    expect(s.score(1).evaluated).toEqual(s.score(0).evaluated)
    expect(s.score(1).detailed).toBe(false)
    expect(s.score(1).overpayment[0]?.count).toBe(0)
    expect(s.score(1).delay).toEqual({ included: 0, sum_delay: 0, max_delay: 0, censored: 0 })
    expect(s.score(0).delay.included).toBe(3)
  })

  it('records no overpayment for a miss', () => {
    const s = new Scorer(1, [1], 100)
    s.push(0, [150])
    s.push(301, [150])
    s.close()
    expect(s.score(0).overpayment[0]?.count).toBe(0)
    expect(s.score(0).included[0]).toBe(0)
  })
})

describe('backtest scoring through strategies', () => {
  it('uses the estimate taken right after ingesting block t for block t', () => {
    // the price rises to 1000 right after block 1 (index 1); block 2 is full at 500
    const step = fixedStrategy('step', (i) => (i >= 1 ? [1000, 1000, 1000] : [100, 100, 100]))
    const bt = new Backtest({ strategies: [step], ks: [1], config: SMALL })
    for (const b of [open(1), open(2), full(3, 500), open(4)]) bt.push(b)
    const r = bt.finish()
    const tier = r.strategies[0]?.tiers[0]?.score
    // t=0 (100 → block 2 open): in; t=1 (1000 → block 3 full at 500): in; t=2 (1000 → block 4 open): in
    expect(tier?.included).toEqual([3])
    const flat = fixedStrategy('flat', [500, 500, 501])
    const bt2 = new Backtest({ strategies: [flat], ks: [1], config: SMALL })
    for (const b of [open(1), open(2), full(3, 500), open(4)]) bt2.push(b)
    const tiers = bt2.finish().strategies[0]?.tiers
    expect(tiers?.map((t) => t.score.included[0])).toEqual([2, 2, 3]) // 500 misses block 3, 501 makes it
  })

  it('judges fullness with the scoring config (full_block_txns)', () => {
    const flat = fixedStrategy('flat', [150, 150, 150])
    const blocks = [open(1), full(2, 150), open(3)]
    const strict = new Backtest({ strategies: [flat], ks: [1], config: SMALL })
    for (const b of blocks) strict.push(b)
    expect(strict.finish().strategies[0]?.tiers[0]?.score.included).toEqual([1]) // block 2 is full at 150
    const lax = new Backtest({ strategies: [fixedStrategy('flat', [150, 150, 150])], ks: [1], config: { ...SMALL, full_block_txns: 250 } })
    for (const b of blocks) lax.push(b)
    expect(lax.finish().strategies[0]?.tiers[0]?.score.included).toEqual([2]) // nothing is full
  })

  it('rejects a block whose height does not increase', () => {
    const bt = new Backtest({ strategies: [fixedStrategy('f', [1, 1, 1])], ks: [1], config: SMALL })
    bt.push(open(5))
    expect(() => bt.push(open(5))).toThrow(/block 5: block_height: must be above the previous block's \(5\)/)
  })
})
