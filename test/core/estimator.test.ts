import { describe, expect, it } from 'vitest'
import type { BlockInput } from '../../src/core/block.js'
import { InvalidBlockError } from '../../src/core/errors.js'
import { createEstimator } from '../../src/core/estimator.js'
import { DEFAULT_BUCKETS } from '../../src/core/next-bucket.js'
import { block, emptyBlock, fullBlock } from '../helpers/core-blocks.js'

const est = (e: ReturnType<typeof createEstimator>) => {
  const x = e.estimate()
  return [x.deprioritized_gas_estimate, x.gas_estimate, x.prioritized_gas_estimate]
}

/** A block whose min inclusion price under the defaults is `price`. */
function pricedAt(height: number, price: number, epoch = 1): BlockInput {
  if (price === 100) return emptyBlock(height, epoch)
  const i = DEFAULT_BUCKETS.indexOf(price)
  return fullBlock(height, i > 0 ? (DEFAULT_BUCKETS[i - 1] as number) : price, epoch)
}

/** Ingests per-block prices given newest first (as the reference notes write P), then one newest block that is skipped. */
function fromP(P: number[]) {
  const e = createEstimator()
  const oldestFirst = [...P].reverse()
  oldestFirst.forEach((p, i) => e.ingest(pricedAt(i + 1, p)))
  e.ingest(fullBlock(oldestFirst.length + 1, 999999)) // newest: skipped, so its high price must not matter
  return e
}

describe('Aptos test cases (api/src/tests/transactions_test.rs goldens)', () => {
  it('T2 ten full blocks (11 blocks of 500 txns, cheapest 100) → {150, 150, 300}', () => {
    const e = createEstimator()
    for (let h = 1; h <= 11; h++) e.ingest(block(h, { n: 500, price: 100 }))
    expect(est(e)).toEqual([150, 150, 300])
  })
  it('T1 ten empty blocks → {100, 100, 150}', () => {
    const e = createEstimator()
    for (let h = 1; h <= 11; h++) e.ingest(emptyBlock(h))
    expect(est(e)).toEqual([100, 100, 150])
  })
  it("T1' min_gas_unit_price 0 → {0, 0, 150}", () => {
    const e = createEstimator({ min_gas_unit_price: 0 })
    for (let h = 1; h <= 11; h++) e.ingest(emptyBlock(h))
    expect(est(e)).toEqual([0, 0, 150])
  })
  it('T4 static override {100, 200, 300} is returned verbatim over full blocks', () => {
    const e = createEstimator({ static_override: { low: 100, market: 200, aggressive: 300 } })
    for (let h = 1; h <= 11; h++) e.ingest(block(h, { n: 500, price: 100 }))
    expect(est(e)).toEqual([100, 200, 300])
    expect(e.explain()).toMatchObject({ source: 'static_override', fallback: true, tiers: null })
  })
  it('T3 disabled → the default whatever the chain', () => {
    const e = createEstimator({ enabled: false })
    for (let h = 1; h <= 11; h++) e.ingest(block(h, { n: 500, price: 100 }))
    expect(est(e)).toEqual([100, 100, 150])
    expect(e.explain().source).toBe('disabled')
  })
  it('T7 smoke: full_block_txns 3, traffic at 100, min 0 → market 150, prioritized 300', () => {
    const e = createEstimator({ full_block_txns: 3, min_gas_unit_price: 0 })
    for (let h = 1; h <= 20; h++) e.ingest(block(h, { n: 3, price: 100 }))
    expect(est(e)).toEqual([150, 150, 300])
  })
  it('T8 smoke: after more than 120 empty blocks the full ones are forgotten → {0, 0, 150}', () => {
    const e = createEstimator({ full_block_txns: 3, min_gas_unit_price: 0 })
    let h = 1
    for (; h <= 20; h++) e.ingest(block(h, { n: 3, price: 100 }))
    for (let i = 0; i < 121; i++, h++) e.ingest(emptyBlock(h))
    expect(est(e)).toEqual([0, 0, 150])
  })
  it('no blocks → default {min, min, next_bucket(min)}', () => {
    expect(est(createEstimator())).toEqual([100, 100, 150])
    expect(createEstimator().explain()).toMatchObject({ source: 'no_history', fallback: true, as_of: null })
  })
})

describe('derived vectors (reference notes §6.3)', () => {
  const vectors: [string, number[], number[]][] = [
    ['D1 120 × 100', Array(120).fill(100), [100, 100, 150]],
    ['D2 10 × 150 then 110 × 100', [...Array(10).fill(150), ...Array(110).fill(100)], [150, 150, 300]],
    ['D3 1 × 100, 29 × 500, 90 × 100', [100, ...Array(29).fill(500), ...Array(90).fill(100)], [100, 500, 1000]],
    ['D4 9 × 100, 1 × 300, 110 × 100', [...Array(9).fill(100), 300, ...Array(110).fill(100)], [100, 100, 150]],
    ['D5 30 × 300 then 90 × 100', [...Array(30).fill(300), ...Array(90).fill(100)], [300, 300, 500]],
    ['D6 five blocks [150,150,100,100,100]', [150, 150, 100, 100, 100], [100, 100, 300]],
    ['D7 four blocks [300,150,150,150]', [300, 150, 150, 150], [150, 150, 500]],
    ['D8 120 × 1,000,000', Array(120).fill(1000000), [1000000, 1000000, 1000000]],
  ]
  it.each(vectors)('%s', (_name, P, expected) => {
    expect(est(fromP(P))).toEqual(expected)
  })
  it('only the newest 120 blocks count', () => {
    expect(est(fromP([...Array(120).fill(100), ...Array(50).fill(500)]))).toEqual([100, 100, 150])
  })
})

describe('epochs', () => {
  it('D9 an epoch change drops the history (the new epoch\'s first block is skipped) → default', () => {
    const e = createEstimator()
    for (let h = 1; h <= 30; h++) e.ingest(fullBlock(h, 300, 1))
    expect(est(e)).toEqual([500, 500, 1000])
    e.ingest(fullBlock(31, 300, 2))
    expect(est(e)).toEqual([100, 100, 150])
    expect(e.explain().source).toBe('no_history')
    e.ingest(emptyBlock(32, 2))
    expect(est(e)).toEqual([500, 500, 1000]) // only block 31 counts now
  })
  it('keep_history_across_epochs keeps it', () => {
    const e = createEstimator({ keep_history_across_epochs: true })
    for (let h = 1; h <= 30; h++) e.ingest(fullBlock(h, 300, 1))
    e.ingest(emptyBlock(31, 2))
    expect(est(e)).toEqual([500, 500, 1000])
  })
})

describe('skip_newest_block', () => {
  it('counts the newest block when off', () => {
    const e = createEstimator({ skip_newest_block: false })
    e.ingest(fullBlock(1, 300))
    expect(est(e)).toEqual([500, 500, 1000])
    const on = createEstimator()
    on.ingest(fullBlock(1, 300))
    expect(est(on)).toEqual([100, 100, 150])
  })
})

describe('ingest rejects bad blocks and leaves the state unchanged', () => {
  it('heights must increase, epochs must not decrease', () => {
    const e = createEstimator()
    for (let h = 1; h <= 5; h++) e.ingest(fullBlock(h, 300))
    const before = JSON.stringify([est(e), e.blocksIngested, e.history()])
    expect(() => e.ingest(emptyBlock(5))).toThrow(InvalidBlockError)
    expect(() => e.ingest(emptyBlock(3))).toThrow(/block_height/)
    e.ingest(fullBlock(6, 300, 3))
    expect(() => e.ingest(emptyBlock(7, 2))).toThrow(/epoch/)
    expect(() => e.ingest(block(7, { prices: [100, -1] }))).toThrow(/gas_unit_prices\[1\]/)
    e.ingest(emptyBlock(7, 3))
    expect(e.blocksIngested).toBe(7)
    expect(before).not.toBe(JSON.stringify([est(e), e.blocksIngested, e.history()]))
  })
  it('a rejected block changes nothing observable', () => {
    const e = createEstimator()
    for (let h = 1; h <= 5; h++) e.ingest(fullBlock(h, 300))
    const snapshot = () => JSON.stringify({ e: est(e), x: e.explain(), h: e.history() }, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))
    const before = snapshot()
    for (const bad of [emptyBlock(5), block(9, { prices: [1.5] }), { ...emptyBlock(9), epoch: 0 }]) {
      expect(() => e.ingest(bad)).toThrow(InvalidBlockError)
      expect(snapshot()).toBe(before)
    }
  })
})

describe('explain and history', () => {
  it('names the window sizes, the full blocks and the block that set each tier', () => {
    const e = createEstimator()
    e.ingest(emptyBlock(10))
    e.ingest(fullBlock(11, 300)) // 500
    e.ingest(fullBlock(12, 150)) // 300
    e.ingest(emptyBlock(13)) // skipped
    const x = e.explain()
    expect(x.as_of).toEqual({ block_height: 13, epoch: 1 })
    expect(x.skipped_block_height).toBe(13)
    expect(x.tiers?.deprioritized).toMatchObject({ value: 100, window_blocks: 3, full_blocks: 2, statistic: 'min', set_by_block: 10 })
    expect(x.tiers?.regular).toMatchObject({ value: 300, index: 1, statistic_value: 300, set_by_block: 12 })
    expect(x.tiers?.prioritized).toMatchObject({ value: 1000, index: 2, statistic_value: 500, set_by_block: 11, bucketed: true })
    const h = e.history()
    expect(h.map((b) => [b.block_height, b.full, b.min_inclusion_price, b.in_estimate])).toEqual([
      [10, false, 100, true],
      [11, true, 500, true],
      [12, true, 300, true],
      [13, false, 100, false],
    ])
    expect(h[1]).toMatchObject({ reason: 'full_block_txns', user_txns: 250, cheapest_gas_unit_price: 300 })
  })
  it('marks a tier raised by the one below it', () => {
    const e = fromP([...Array(10).fill(150), ...Array(110).fill(100)])
    expect(e.explain().tiers?.regular).toMatchObject({ value: 150, statistic_value: 100, raised_by: 'deprioritized' })
  })
  it('history is bounded by the largest window + the skipped block', () => {
    const e = createEstimator({ low_block_history: 2, market_block_history: 3, aggressive_block_history: 4 })
    for (let h = 1; h <= 50; h++) e.ingest(emptyBlock(h))
    expect(e.history().map((b) => b.block_height)).toEqual([46, 47, 48, 49, 50])
  })
})
