import { describe, expect, it } from 'vitest'
import { Mempool, type BlockLimits, type PendingTxn } from '../../src/sim/mempool.js'

let arrival = 0
function txn(gas_unit_price: number, gas_used = 10, expiration_timestamp_secs = 100): PendingTxn {
  return {
    arrival: arrival++,
    sender: 0,
    sequence_number: 0,
    replay_protection_nonce: null,
    gas_unit_price,
    max_gas_amount: 200_000,
    gas_used,
    expiration_timestamp_secs,
    function: '0x1::aptos_account::transfer',
    type_arguments: [],
    arguments: [],
    output_bytes: 100,
  }
}
const WIDE: BlockLimits = { max_block_txns: 100, block_gas_limit: 1_000_000, block_output_limit: 1_000_000 }

describe('Mempool', () => {
  it('takes by price descending, then by arrival', () => {
    const pool = new Mempool()
    const a = txn(100)
    const b = txn(300)
    const c = txn(150)
    const d = txn(300)
    const e = txn(100)
    for (const t of [a, b, c, d, e]) pool.add(t)
    expect(pool.take(WIDE).txns).toEqual([b, d, c, a, e])
    expect(pool.size).toBe(0)
  })

  it('stops at the count limit and leaves the rest for the next block', () => {
    const pool = new Mempool()
    for (let i = 0; i < 5; i++) pool.add(txn(100))
    const s = pool.take({ ...WIDE, max_block_txns: 3 })
    expect(s.txns).toHaveLength(3)
    expect(s.block_gas_limit_reached).toBe(false)
    expect(pool.size).toBe(2)
  })

  it('keeps the txn that reaches the gas limit, then stops, and reports it', () => {
    const pool = new Mempool()
    for (const g of [400, 400, 400, 400]) pool.add(txn(100, g))
    const s = pool.take({ ...WIDE, block_gas_limit: 1000 })
    expect(s.txns).toHaveLength(3)
    expect(s.gas_used).toBe(1200)
    expect(s.block_gas_limit_reached).toBe(true)
    expect(pool.size).toBe(1)
  })

  it('a block exactly at the gas limit has reached it', () => {
    const pool = new Mempool()
    pool.add(txn(100, 500))
    pool.add(txn(100, 500))
    const s = pool.take({ ...WIDE, block_gas_limit: 1000 })
    expect(s.txns).toHaveLength(2)
    expect(s.block_gas_limit_reached).toBe(true)
  })

  it('expires a txn once the block second reaches its expiration, not before', () => {
    const pool = new Mempool()
    const early = txn(100, 10, 50)
    const late = txn(100, 10, 51)
    pool.add(early)
    pool.add(late)
    expect(pool.expire(49)).toEqual([])
    expect(pool.expire(50)).toEqual([early])
    expect(pool.take(WIDE).txns).toEqual([late])
  })
})
