import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { InvalidBlockError } from '../../src/core/errors.js'
import { createEstimator } from '../../src/core/estimator.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'

// Real mainnet transactions in the node's REST shape: 7 whole blocks (see test/fixtures/README.md).
const REAL = fileURLToPath(new URL('../fixtures/aptos-mainnet-aphd/txs-22.json', import.meta.url))

/** Groups the node's transaction stream into blocks (metadata … checkpoint), as /blocks/by_height returns them. */
function realBlocks(): Record<string, unknown>[] {
  const txns = JSON.parse(readFileSync(REAL, 'utf8')) as Record<string, unknown>[]
  const blocks: Record<string, unknown>[] = []
  let current: Record<string, unknown>[] = []
  for (const t of txns) {
    if (t.type === 'block_metadata_transaction' && current.length > 0) current = []
    current.push(t)
    if (t.type === 'state_checkpoint_transaction') {
      blocks.push({
        block_height: String(5712591 + blocks.length),
        block_hash: current[0]!.id,
        block_timestamp: current[0]!.timestamp,
        first_version: current[0]!.version,
        last_version: t.version,
        transactions: current,
      })
    }
  }
  return blocks
}

const userBlock = (overrides: Record<string, unknown> = {}, txn: Record<string, unknown> = {}) => ({
  block_height: '12',
  block_hash: '0x' + '0'.repeat(64),
  block_timestamp: '1',
  first_version: '100',
  last_version: '102',
  transactions: [
    { type: 'block_metadata_transaction', version: '100', epoch: '3', round: '9' },
    { type: 'user_transaction', version: '101', gas_unit_price: '150', gas_used: '7', payload: { type: 'entry_function_payload', function: '0xcafe::m::f', type_arguments: [], arguments: [] }, ...txn },
    { type: 'block_epilogue_transaction', version: '102', block_end_info: { block_gas_limit_reached: true, block_output_limit_reached: false, block_effective_block_gas_units: 5, block_approx_output_size: 10 } },
  ],
  ...overrides,
})

describe('parseBlockJson', () => {
  it('reads real Aptos mainnet blocks (epoch 237) in the node shape', () => {
    const blocks = realBlocks()
    expect(blocks.length).toBe(7)
    const parsed = blocks.map(parseBlockJson)
    expect(parsed.every((b) => b.epoch === 237)).toBe(true)
    expect(parsed.map((b) => b.gas_unit_prices.length)).toEqual([2, 1, 0, 1, 2, 2, 0])
    expect(parsed[0]!.contract_addresses[0]).toBe('0xf6994988bd40261af9431cd6dd3fcf765569719e66322c7a05cc78a89cd366d4')
    expect(parsed[0]!.first_version).toBe(19980000)
    const e = createEstimator()
    for (const b of parsed) e.ingest(b)
    expect(e.estimate()).toEqual({ deprioritized_gas_estimate: 100, gas_estimate: 100, prioritized_gas_estimate: 150 })
  })

  it('reads epoch, prices, gas, contract and end info', () => {
    const b = parseBlockJson(userBlock())
    expect(b).toMatchObject({ block_height: 12, epoch: 3, first_version: 100, last_version: 102, gas_unit_prices: [150], gas_used: [7] })
    expect(b.contract_addresses).toEqual(['0x' + 'cafe'.padStart(64, '0')])
    expect(b.block_end_info).toEqual({ block_gas_limit_reached: true, block_output_limit_reached: false })
  })

  it('framework entry functions and non-entry payloads count for no contract', () => {
    expect(parseBlockJson(userBlock({}, { payload: { type: 'entry_function_payload', function: '0x1::coin::transfer', type_arguments: [], arguments: [] } })).contract_addresses).toEqual([null])
    expect(parseBlockJson(userBlock({}, { payload: { type: 'script_payload', code: {} } })).contract_addresses).toEqual([null])
  })

  it('keeps u64 values above 2^53 exact', () => {
    expect(parseBlockJson(userBlock({}, { gas_unit_price: '18446744073709551615' })).gas_unit_prices).toEqual([18446744073709551615n])
  })

  const bad: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
    ['missing height', { block_height: undefined }, {}, 'block_height'],
    ['numeric height', { block_height: 12 }, {}, 'block_height'],
    ['negative price', {}, { gas_unit_price: '-1' }, 'transactions[1].gas_unit_price'],
    ['fractional gas', {}, { gas_used: '1.5' }, 'transactions[1].gas_used'],
    ['price above u64', {}, { gas_unit_price: '18446744073709551616' }, 'transactions[1].gas_unit_price'],
    ['price missing', {}, { gas_unit_price: undefined }, 'transactions[1].gas_unit_price'],
    ['bad function id', {}, { payload: { type: 'entry_function_payload', function: 'coin::transfer' } }, 'transactions[1].payload.function'],
    ['versions reversed', { first_version: '103' }, {}, 'last_version'],
    ['no transactions', { transactions: undefined }, {}, 'transactions'],
    ['no metadata', { transactions: [] }, {}, 'transactions'],
  ]
  it.each(bad)('rejects %s naming the field', (_n, over, txn, field) => {
    try {
      parseBlockJson(userBlock(over, txn))
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidBlockError)
      expect((e as InvalidBlockError).field).toBe(field)
    }
  })
})
