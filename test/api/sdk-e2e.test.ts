import { Aptos, AptosApiError, AptosConfig, Network } from '@aptos-labs/ts-sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type ReadApiServer } from '../../src/api/index.js'
import type { MemoryStore } from '../../src/ledger/memory-store.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { storeOf } from '../helpers/api-server.js'

/**
 * The official Aptos TypeScript SDK against the real server on a loopback port: its own request
 * path, URL building, JSON parsing and error type, nothing mocked.
 */
const chain = new ChainBuilder()
// Account 0x…abc sends 30 sequence-number txns over 15 blocks; blocks are full (3 txns ≥ full_block_txns).
const blocks = chain.blocks(15, (i) => [{ sender: 0xabc, gas_unit_price: 100 }, { sender: 0xabc, gas_unit_price: 120 }, { sender: 0x100 + i, gas_unit_price: 400 }])
const ACCOUNT = addr(0xabc)

let server: ReadApiServer
let store: MemoryStore
let aptos: Aptos
let pruneAt: number

beforeAll(async () => {
  store = storeOf(blocks)
  server = await createServer({ store, estimator: { full_block_txns: 3 }, headerPrefix: 'X-APTOS-' })
  const url = await server.listen({ port: 0, host: '127.0.0.1' })
  aptos = new Aptos(new AptosConfig({ network: Network.CUSTOM, fullnode: `${url}/v1` }))
  // Drop the first two blocks (account seq 0..3) so the SDK meets a 410.
  pruneAt = Number(blocks[2]?.first_version)
  store.pruneBelow(pruneAt)
})

afterAll(async () => {
  await server.close()
})

describe('@aptos-labs/ts-sdk against the server', () => {
  it('getGasPriceEstimation returns the three estimates as numbers', async () => {
    const estimate = await aptos.getGasPriceEstimation()
    // Full blocks whose cheapest txn paid 100 price at next_bucket(100) = 150; aggressive next_bucket(150) = 300.
    expect(estimate).toEqual({ deprioritized_gas_estimate: 150, gas_estimate: 150, prioritized_gas_estimate: 300 })
  })

  it('getTransactionByVersion returns the committed transaction', async () => {
    const v = pruneAt + 1
    const txn = await aptos.getTransactionByVersion({ ledgerVersion: v })
    expect(txn.type).toBe('user_transaction')
    expect((txn as { version: string }).version).toBe(String(v))
    if (txn.type === 'user_transaction') {
      expect(txn.sender).toBe(ACCOUNT)
      expect(txn.sequence_number).toBe('4')
    }
    const asBigint = await aptos.getTransactionByVersion({ ledgerVersion: BigInt(v) })
    expect(asBigint).toEqual(txn)
  })

  it('getAccountTransactions without options returns the latest page, ascending', async () => {
    const txns = await aptos.getAccountTransactions({ accountAddress: ACCOUNT })
    expect(txns.map((t) => (t as { sequence_number: string }).sequence_number)).toEqual(Array.from({ length: 25 }, (_, i) => String(i + 5)))
  })

  it('getAccountTransactions with offset and limit returns that window', async () => {
    const txns = await aptos.getAccountTransactions({ accountAddress: ACCOUNT, options: { offset: 10, limit: 4 } })
    expect(txns.map((t) => (t as { sequence_number: string }).sequence_number)).toEqual(['10', '11', '12', '13'])
    const short = await aptos.getAccountTransactions({ accountAddress: ACCOUNT, options: { offset: 28 } })
    expect(short).toHaveLength(2)
    expect(await aptos.getAccountTransactions({ accountAddress: addr(0xdead), options: { limit: 5 } })).toEqual([])
  })

  it('getBlockByHeight with transactions returns the whole block', async () => {
    const block = await aptos.getBlockByHeight({ blockHeight: 7, options: { withTransactions: true } })
    expect(block.first_version).toBe(blocks[7]?.first_version)
    expect(block.transactions).toHaveLength(5)
  })

  it('surfaces a 404 (version above the ledger) as an AptosApiError', async () => {
    const error = await aptos.getTransactionByVersion({ ledgerVersion: chain.version + 10n }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AptosApiError)
    expect((error as AptosApiError).status).toBe(404)
    expect((error as AptosApiError).data).toMatchObject({ error_code: 'transaction_not_found' })
  })

  it('surfaces a 410 (pruned version, pruned account page) as an AptosApiError', async () => {
    const error = await aptos.getTransactionByVersion({ ledgerVersion: pruneAt - 1 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AptosApiError)
    expect((error as AptosApiError).status).toBe(410)
    expect((error as AptosApiError).data).toMatchObject({ error_code: 'version_pruned' })
    const page = await aptos.getAccountTransactions({ accountAddress: ACCOUNT, options: { offset: 1, limit: 2 } }).catch((e: unknown) => e)
    expect(page).toBeInstanceOf(AptosApiError)
    expect((page as AptosApiError).status).toBe(410)
  })

  it('surfaces a 400 (limit 0) as an AptosApiError', async () => {
    const error = await aptos.getAccountTransactions({ accountAddress: ACCOUNT, options: { offset: 0, limit: 0 } }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AptosApiError)
    expect((error as AptosApiError).status).toBe(400)
    expect((error as AptosApiError).data).toMatchObject({ error_code: 'invalid_input' })
  })
})
