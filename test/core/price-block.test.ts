import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../../src/core/config.js'
import { InvalidBlockError } from '../../src/core/errors.js'
import { priceBlock } from '../../src/core/price-block.js'
import { block } from '../helpers/core-blocks.js'

const C = resolveConfig()
const A = '0x' + 'ab'.repeat(32)
const B = '0x' + 'cd'.repeat(32)

describe('priceBlock: fullness rules (reference notes §6.4)', () => {
  it('F1: 250 txns, cheapest 100, no majority contract → full, price 150', () => {
    const p = priceBlock(block(1, { prices: [100, ...Array(249).fill(200)] }), C)
    expect(p).toMatchObject({ full: true, reason: 'full_block_txns', cheapest_gas_unit_price: 100, min_inclusion_price: 150, user_txns: 250 })
  })
  it('F2: 249 txns, no gas limit, no end info → not full, price = min', () => {
    expect(priceBlock(block(1, { n: 249 }), C)).toMatchObject({ full: false, reason: 'under_capacity', min_inclusion_price: 100 })
  })
  it('F3: 300 txns with 60% to one contract → not full (majority rule first)', () => {
    const contracts = [...Array(180).fill(A), ...Array(120).fill(null)]
    expect(priceBlock(block(1, { n: 300, contracts }), C)).toMatchObject({ full: false, reason: 'majority_contract', min_inclusion_price: 100 })
  })
  it('F4: framework calls (null) in the majority do not trigger the rule', () => {
    const contracts = [...Array(180).fill(null), ...Array(120).fill(A)]
    expect(priceBlock(block(1, { n: 300, contracts }), C)).toMatchObject({ full: true, reason: 'full_block_txns' })
  })
  it('F5: exactly half to one contract is not a majority', () => {
    const contracts = [...Array(150).fill(A), ...Array(150).fill(B)]
    expect(priceBlock(block(1, { n: 300, contracts, price: 150 }), C)).toMatchObject({ full: true, min_inclusion_price: 300 })
  })
  it('F6: block gas limit reached by the summed gas → full', () => {
    const cfg = resolveConfig({ block_gas_limit: 1000 })
    expect(priceBlock(block(1, { prices: [500, 120], gas: [600, 400] }), cfg)).toMatchObject({ full: true, reason: 'block_gas_limit', gas_used: 1000, min_inclusion_price: 150 })
    expect(priceBlock(block(1, { prices: [500, 120], gas: [600, 399] }), cfg)).toMatchObject({ full: false, reason: 'block_gas_limit', min_inclusion_price: 100 })
  })
  it('F7: without incorporate_reordering_effects the majority is ignored', () => {
    const cfg = resolveConfig({ incorporate_reordering_effects: false })
    expect(priceBlock(block(1, { n: 300, contracts: Array(300).fill(A) }), cfg)).toMatchObject({ full: true, reason: 'full_block_txns' })
  })
  it('F8: no user txns → not full even when the end info says a limit was reached', () => {
    const endInfo = { block_gas_limit_reached: true, block_output_limit_reached: false }
    expect(priceBlock(block(1, { endInfo }), C)).toMatchObject({ full: false, reason: 'no_user_txns', cheapest_gas_unit_price: null, min_inclusion_price: 100 })
  })
  it('end info decides below full_block_txns: either flag → full; neither → not full (gas limit not consulted, as Aptos)', () => {
    const cfg = resolveConfig({ block_gas_limit: 1 })
    expect(priceBlock(block(1, { prices: [300], endInfo: { block_gas_limit_reached: false, block_output_limit_reached: true } }), C)).toMatchObject({ full: true, reason: 'block_end_info', min_inclusion_price: 500 })
    expect(priceBlock(block(1, { prices: [300], gas: [5], endInfo: { block_gas_limit_reached: false, block_output_limit_reached: false } }), cfg)).toMatchObject({ full: false, reason: 'block_end_info' })
  })
  it('full_block_txns is configurable', () => {
    expect(priceBlock(block(1, { prices: [100, 100, 100] }), resolveConfig({ full_block_txns: 3 }))).toMatchObject({ full: true, min_inclusion_price: 150 })
  })
  it('prices above 2^53 stay exact', () => {
    const p = priceBlock(block(1, { prices: [18446744073709551615n, ...Array(249).fill(18446744073709551614n)] }), C)
    expect(p.cheapest_gas_unit_price).toBe(18446744073709551614n)
    expect(p.min_inclusion_price).toBe(18446744073709551614n)
  })
  it('sums gas exactly past 2^53', () => {
    const p = priceBlock(block(1, { prices: [1, 1, 1], gas: [2 ** 53 - 1, 2 ** 53 - 1, 2] }), C)
    expect(p.gas_used).toBe(2n ** 54n)
  })
})

describe('priceBlock: validation names the block and the field', () => {
  const bad: [string, Parameters<typeof block>[1] & { height?: unknown }, string][] = [
    ['negative price', { prices: [100, -1] }, 'gas_unit_prices[1]'],
    ['fractional price', { prices: [1.5] }, 'gas_unit_prices[0]'],
    ['price above u64', { prices: [2n ** 64n] }, 'gas_unit_prices[0]'],
    ['NaN price', { prices: [NaN] }, 'gas_unit_prices[0]'],
    ['negative gas', { prices: [1], gas: [-5] }, 'gas_used[0]'],
    ['gas length mismatch', { prices: [1, 2], gas: [5] }, 'gas_used'],
  ]
  it.each(bad)('%s', (_name, opts, field) => {
    try {
      priceBlock(block(7, opts), C)
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidBlockError)
      expect((e as InvalidBlockError).field).toBe(field)
      expect((e as InvalidBlockError).block).toBe('7')
      expect((e as Error).message).toContain(field)
    }
  })
  it('rejects a bad height and epoch', () => {
    expect(() => priceBlock({ ...block(1), block_height: '-3' }, C)).toThrow(/block_height/)
    expect(() => priceBlock({ ...block(1), epoch: 1.5 }, C)).toThrow(/epoch/)
    expect(() => priceBlock({ ...block(1), block_end_info: { block_gas_limit_reached: 'yes' } as never }, C)).toThrow(/block_end_info.block_gas_limit_reached/)
  })
})
