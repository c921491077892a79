import { describe, expect, it } from 'vitest'
import { createServer } from '../../src/api/index.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { expectError, expectSchema } from '../helpers/api-schemas.js'
import { get, serverOf, storeOf } from '../helpers/api-server.js'

const chain = new ChainBuilder({ height: 10, version: 100 })
const blocks = chain.blocks(6, (i) => Array.from({ length: 3 + i }, (_, k) => ({ sender: k + 1, gas_unit_price: 100 + 50 * i })))

describe('GET /v1', () => {
  it('returns the ledger info as an IndexResponse', async () => {
    const store = storeOf(blocks, 7)
    const server = await createServer({ store, gitHash: 'abc123' })
    store.pruneBelow(Number(blocks[1]?.first_version))
    for (const url of ['/v1', '/v1/']) {
      const res = await get(server, url)
      expect(res.statusCode).toBe(200)
      const body = res.json()
      expectSchema('IndexResponse', body)
      expect(body).toEqual({
        chain_id: 7,
        epoch: '1',
        ledger_version: String(chain.version - 1n),
        oldest_ledger_version: blocks[1]?.first_version,
        ledger_timestamp: blocks[5]?.block_timestamp,
        node_role: 'full_node',
        oldest_block_height: '11',
        block_height: '15',
        git_hash: 'abc123',
      })
    }
  })
})

describe('GET /v1/blocks/by_height/{block_height}', () => {
  it('with_transactions=true returns the block as stored, schema-valid', async () => {
    const server = await serverOf(blocks)
    for (const b of blocks) {
      const res = await get(server, `/v1/blocks/by_height/${b.block_height}?with_transactions=true`)
      expect(res.statusCode).toBe(200)
      expectSchema('Block', res.json())
      expect(res.json()).toEqual(b)
    }
  })

  it('without transactions writes "transactions": null, as the node does', async () => {
    const server = await serverOf(blocks)
    for (const q of ['', '?with_transactions=false']) {
      const res = await get(server, `/v1/blocks/by_height/12${q}`)
      const body = res.json() as Record<string, unknown>
      expectSchema('Block', body)
      expect(body.transactions).toBeNull()
      expect(body.first_version).toBe(blocks[2]?.first_version)
    }
  })

  it('answers 404 block_not_found above the height, 410 block_pruned below the oldest, 400 on bad input', async () => {
    const store = storeOf(blocks)
    const server = await createServer({ store })
    store.pruneBelow(Number(blocks[2]?.first_version))
    expect(expectError(await get(server, '/v1/blocks/by_height/16'), 404, 'block_not_found').message).toBe('Block not found by Block height(16)')
    expect(expectError(await get(server, '/v1/blocks/by_height/11'), 410, 'block_pruned').message).toBe('Block(11) has been pruned')
    expectError(await get(server, '/v1/blocks/by_height/0'), 410, 'block_pruned')
    expect((await get(server, '/v1/blocks/by_height/12')).statusCode).toBe(200)
    for (const bad of ['x', '-1', '18446744073709551616', '12?with_transactions=yes', '12?with_transactions=1', '12?with_transactions=TRUE']) {
      expectError(await get(server, `/v1/blocks/by_height/${bad}`), 400, 'web_framework_error')
    }
  })

  it('lets a second server follow the first block by block and reach the same estimate', async () => {
    const config = { full_block_txns: 4 }
    const source = await serverOf(blocks, { estimator: config })
    const follower = await createServer({ store: new MemoryStore(), estimator: config })
    const tip = Number((await get(source, '/v1')).json().block_height)
    for (let h = 10; h <= tip; h++) {
      await follower.appendBlock((await get(source, `/v1/blocks/by_height/${h}?with_transactions=true`)).json() as BlockJson)
    }
    const a = await get(source, '/v1/estimate_gas_price')
    const b = await get(follower, '/v1/estimate_gas_price')
    expect(b.body).toBe(a.body)
    expect(a.json()).not.toEqual({ deprioritized_gas_estimate: 100, gas_estimate: 100, prioritized_gas_estimate: 150 })
  })
})
