import { describe, expect, it } from 'vitest'
import { createServer } from '../../src/api/index.js'
import type { U64 } from '../../src/core/u64.js'
import type { LedgerStore } from '../../src/ledger/store/store.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { storeOf } from '../helpers/api-server.js'

const chain = new ChainBuilder()
const blocks = chain.blocks(4, () => [{ sender: 1 }, { sender: 2 }])

/**
 * A memory store that also hands out JSON texts, marked so a response shows which read served
 * it: the text is JSON.stringify of the transaction with one more member, `"served":"text"`.
 */
function textStore(): LedgerStore & { calls: number; transactionJsonByVersion(version: U64): string | null } {
  const inner = storeOf(blocks)
  const mark = (t: unknown) => JSON.stringify({ ...(t as object), served: 'text' })
  const store = {
    ledgerInfo: () => inner.ledgerInfo(),
    transactionByVersion: (v: U64) => inner.transactionByVersion(v),
    accountTransactions: (a: string, s: U64, l: number) => inner.accountTransactions(a, s, l),
    accountSequenceNumber: (a: string) => inner.accountSequenceNumber(a),
    blockByHeight: (h: U64, w: boolean) => inner.blockByHeight(h, w),
    appendBlock: () => {
      throw new Error('read only')
    },
    pruneBelow: () => {},
    close: () => {},
    calls: 0,
    transactionJsonByVersion(version: U64) {
      store.calls++
      const t = inner.transactionByVersion(version)
      return t === null ? null : mark(t)
    },
    accountTransactionsJson(address: string, start: U64, limit: number) {
      store.calls++
      return inner.accountTransactions(address, start, limit).map(mark)
    },
  }
  return store
}

describe('routes serve a store’s JSON texts when it has them', () => {
  it('by_version answers with the store’s text as is', async () => {
    const store = textStore()
    const server = await createServer({ store })
    const res = await server.fastify.inject({ method: 'GET', url: '/v1/transactions/by_version/3' })
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe(JSON.stringify({ ...(storeOf(blocks).transactionByVersion(3) as object), served: 'text' }))
    expect(store.calls).toBe(1)
    expect((await server.fastify.inject({ method: 'GET', url: '/v1/transactions/by_version/999' })).statusCode).toBe(404)
  })

  it('account listings answer with the texts joined as an array; a pruned start is still found from the first one', async () => {
    const store = textStore()
    const server = await createServer({ store })
    const res = await server.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(1)}/transactions?start=1&limit=2` })
    expect(res.statusCode).toBe(200)
    const page = res.json() as { sequence_number: string; served: string }[]
    expect(page.map((t) => [t.sequence_number, t.served])).toEqual([
      ['1', 'text'],
      ['2', 'text'],
    ])
    expect(res.body).toBe(`[${storeOf(blocks).accountTransactions(addr(1), 1, 2).map((t) => JSON.stringify({ ...t, served: 'text' })).join(',')}]`)
  })

  it('a store without them is served from the parsed reads, as before', async () => {
    const server = await createServer({ store: storeOf(blocks) })
    const res = await server.fastify.inject({ method: 'GET', url: '/v1/transactions/by_version/3' })
    expect(res.body).toBe(JSON.stringify(storeOf(blocks).transactionByVersion(3)))
  })

  it('a text of another version is a 500, not a wrong answer', async () => {
    const store = textStore()
    store.transactionJsonByVersion = () => JSON.stringify(storeOf(blocks).transactionByVersion(2))
    const server = await createServer({ store })
    expect((await server.fastify.inject({ method: 'GET', url: '/v1/transactions/by_version/3' })).statusCode).toBe(500)
  })
})
