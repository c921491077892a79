import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { chainLines, generateChain, SCENARIOS, type ChainOptionsInput } from '../../src/sim/index.js'
import { Mempool, type PendingTxn } from '../../src/sim/mempool.js'
import { checkChainLaws, parseLines } from './chain-laws.js'
import { checkBlockShape } from './wire-shape.js'
import { fcRuns } from '../budget.js'

// Each run generates up to 60 blocks, so half the typical budget.
const NUM_RUNS = fcRuns(0.5)

/**
 * Small chains over every option that changes structure: any seed (up to 2^53 - 1), any
 * scenario, short epochs, a checkpoint prefix, few accounts (senders give up), a start offset.
 * Short chains of `calm`, `surge`, `mixed` and `switching` are calm, those of `congested-N`
 * busy and then congested; `sustained` ones are congested from the first block, which
 * exercises the gas limit, expiry and give-ups (long runs of every regime are in
 * generate-chain.test.ts and congested-scenarios.test.ts).
 */
const optionsArb: fc.Arbitrary<ChainOptionsInput> = fc.record({
  blocks: fc.integer({ min: 0, max: 60 }),
  seed: fc.maxSafeNat(),
  scenario: fc.constantFrom(...SCENARIOS),
  epoch_blocks: fc.integer({ min: 1, max: 40 }),
  checkpoint_epochs: fc.integer({ min: 0, max: 3 }),
  accounts: fc.integer({ min: 1, max: 3000 }),
  first_height: fc.integer({ min: 0, max: 2 ** 40 }),
  first_version: fc.integer({ min: 0, max: 2 ** 45 }),
})

// Runs scale with FC_NUM_RUNS, so the time limit does too (a run is ~50 ms of generation).
const TIMEOUT = 10_000 + NUM_RUNS * 200

describe('generateChain properties', { timeout: TIMEOUT }, () => {
  it('every chain obeys the chain laws and every block the wire shape', () => {
    fc.assert(
      fc.property(optionsArb, (o) => {
        const blocks = [...generateChain(o)].map((g) => g.block)
        expect(blocks).toHaveLength(o.blocks)
        const { problems, facts } = checkChainLaws(blocks, undefined, o.first_version)
        expect(problems).toEqual([])
        for (const b of blocks) expect(checkBlockShape(b)).toEqual([])
        expect(facts.checkpointBlocks).toBe(Math.min(o.blocks, (o.checkpoint_epochs ?? 0) * (o.epoch_blocks ?? 1)))
        if (blocks.length > 0) expect(blocks[0]!.block_height).toBe(String(o.first_height))
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('the epoch rises by one every epoch_blocks blocks and the round restarts', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 80 }), fc.nat(), (epoch_blocks, blocks, seed) => {
        const chain = [...generateChain({ blocks, seed, epoch_blocks, scenario: 'calm' })]
        chain.forEach(({ block }, i) => {
          const meta = block.transactions[0]!
          if (meta.type !== 'block_metadata_transaction') throw new Error('no metadata')
          expect(meta.epoch).toBe(String(1 + Math.floor(i / epoch_blocks)))
          if (i % epoch_blocks === 0) expect(Number(meta.round)).toBe(1 + meta.failed_proposer_indices.length)
        })
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('same options give identical bytes; another seed gives other bytes', () => {
    fc.assert(
      fc.property(optionsArb, fc.maxSafeNat(), (o, other) => {
        fc.pre(o.blocks > 0 && other !== o.seed)
        const a = [...chainLines(o)].join('')
        expect([...chainLines(o)].join('')).toBe(a)
        expect([...chainLines({ ...o, seed: other })].join('')).not.toBe(a)
        expect(parseLines(a)).toHaveLength(o.blocks)
      }),
      { numRuns: fcRuns(0.25, 5) },
    )
  })

  it('the mempool takes the highest price first and, at equal price, the earliest arrival', () => {
    const txnArb = fc.record({ price: fc.constantFrom(100, 150, 300, 500, 1000, 1234), gas: fc.integer({ min: 1, max: 900 }) })
    const limitsArb = fc.record({ max_block_txns: fc.integer({ min: 1, max: 50 }), block_gas_limit: fc.integer({ min: 1, max: 20_000 }), block_output_limit: fc.constant(1e12) })
    fc.assert(
      fc.property(fc.array(txnArb, { maxLength: 120, size: 'max' }), limitsArb, (specs, limits) => {
        const pool = new Mempool()
        const txns = specs.map((s, arrival): PendingTxn => ({ arrival, sender: arrival, sequence_number: 0, replay_protection_nonce: null, gas_unit_price: s.price, max_gas_amount: 1e6, gas_used: s.gas, expiration_timestamp_secs: 1e9, function: '0x1::m::f', type_arguments: [], arguments: [], output_bytes: 1 }))
        for (const t of txns) pool.add(t)
        const order = [...txns].sort((a, b) => b.gas_unit_price - a.gas_unit_price || a.arrival - b.arrival)
        const s = pool.take(limits)
        expect(s.txns).toEqual(order.slice(0, s.txns.length))
        // It stopped for a reason: the count limit, the gas limit, or an empty pool.
        const gas = s.txns.reduce((n, t) => n + t.gas_used, 0)
        expect(gas).toBe(s.gas_used)
        expect(s.block_gas_limit_reached).toBe(gas >= limits.block_gas_limit)
        expect(s.txns.length === limits.max_block_txns || s.block_gas_limit_reached || pool.size === 0).toBe(true)
        // Without the last txn taken, the block was still under the gas limit.
        expect(gas - (s.txns.at(-1)?.gas_used ?? 0)).toBeLessThan(limits.block_gas_limit)
      }),
      { numRuns: NUM_RUNS },
    )
  })
})
