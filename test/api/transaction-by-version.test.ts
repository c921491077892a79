import { describe, expect, it } from 'vitest'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { expectError, expectSchema } from '../helpers/api-schemas.js'
import { get, headerNames, serverOf, storeOf } from '../helpers/api-server.js'
import { createServer } from '../../src/api/index.js'

const chain = new ChainBuilder()
const blocks = chain.blocks(4, (i) => [{ sender: 1 }, { sender: 2, gas_unit_price: 150 + i }, { sender: 3, nonce: 77 + i }])
const ledgerVersion = Number(chain.version) - 1

describe('GET /v1/transactions/by_version/{txn_version}', () => {
  it('returns every retained version as a schema-valid Transaction with the ledger headers', async () => {
    const server = await serverOf(blocks)
    const types = new Set<string>()
    for (let v = 0; v <= ledgerVersion; v++) {
      const res = await get(server, `/v1/transactions/by_version/${v}`)
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
      const txn = res.json() as { version: string; type: string }
      expectSchema('Transaction', txn)
      expect(txn.version).toBe(String(v))
      types.add(txn.type)
      for (const h of headerNames()) expect(res.headers[h]).toMatch(/^[0-9]+$/)
      expect(res.headers['x-node-ledger-version']).toBe(String(ledgerVersion))
    }
    expect([...types].sort()).toEqual(['block_epilogue_transaction', 'block_metadata_transaction', 'user_transaction'])
  })

  it('renders a user transaction in the node’s committed shape, nulls included', async () => {
    const server = await serverOf(blocks)
    const txn = (await get(server, '/v1/transactions/by_version/1')).json() as Record<string, unknown>
    expect(Object.keys(txn)).toEqual(expect.arrayContaining(['version', 'hash', 'state_change_hash', 'event_root_hash', 'state_checkpoint_hash', 'gas_used', 'success', 'vm_status', 'accumulator_root_hash', 'changes', 'sender', 'sequence_number', 'max_gas_amount', 'gas_unit_price', 'expiration_timestamp_secs', 'payload', 'signature', 'replay_protection_nonce', 'events', 'timestamp', 'type']))
    expect(txn.state_checkpoint_hash).toBeNull()
    expect(txn.replay_protection_nonce).toBeNull()
    expect(txn.type).toBe('user_transaction')
  })

  it('answers 404 transaction_not_found above the ledger version, with ledger headers', async () => {
    const server = await serverOf(blocks)
    for (const v of [ledgerVersion + 1, ledgerVersion + 1000, '18446744073709551615']) {
      const res = await get(server, `/v1/transactions/by_version/${v}`)
      const body = expectError(res, 404, 'transaction_not_found')
      expect(body.message).toBe(`Transaction not found by Ledger version(${v})`)
      for (const h of headerNames()) expect(res.headers[h]).toBeDefined()
    }
  })

  it('answers 410 version_pruned below the oldest retained version', async () => {
    const store = storeOf(blocks)
    const server = await createServer({ store })
    store.pruneBelow(Number(blocks[2]?.first_version))
    const oldest = Number(blocks[2]?.first_version)
    const res = await get(server, `/v1/transactions/by_version/${oldest - 1}`)
    expect(expectError(res, 410, 'version_pruned').message).toBe(`Ledger version(${oldest - 1}) has been pruned`)
    expect(res.headers['x-node-ledger-oldest-version']).toBe(String(oldest))
    expect((await get(server, '/v1/transactions/by_version/0')).statusCode).toBe(410)
    expect((await get(server, `/v1/transactions/by_version/${oldest}`)).statusCode).toBe(200)
  })

  it('treats versions before the first block of a ledger that begins late as pruned', async () => {
    const late = new ChainBuilder({ height: 1000, version: 500_000 })
    const server = await serverOf(late.blocks(2, () => [{ sender: 9 }]))
    expectError(await get(server, '/v1/transactions/by_version/499999'), 410, 'version_pruned')
    expect((await get(server, '/v1/transactions/by_version/500000')).statusCode).toBe(200)
  })

  it('answers 400 web_framework_error for a version that is not a u64', async () => {
    const server = await serverOf(blocks)
    for (const bad of ['abc', '-1', '1e2', '0x10', '%205', '1.0', '18446744073709551616', '99999999999999999999999']) {
      const res = await get(server, `/v1/transactions/by_version/${bad}`)
      const body = expectError(res, 400, 'web_framework_error')
      expect(body.message).toMatch(/^failed to parse path `txn_version`/)
    }
  })
})
