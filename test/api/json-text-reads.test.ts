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

/**
 * A memory store whose byte reads are marked, so a response shows it was served from them: each
 * transaction's bytes are its JSON with `"served":"bytes"`; `released` collects the bodies given back.
 */
function byteStore() {
  const inner = storeOf(blocks)
  const mark = (t: unknown) => JSON.stringify({ ...(t as object), served: 'bytes' })
  const released: Uint8Array[] = []
  const store: LedgerStore & { released: Uint8Array[] } = {
    ledgerInfo: () => inner.ledgerInfo(),
    transactionByVersion: (v: U64) => inner.transactionByVersion(v),
    accountTransactions: (a: string, s: U64, l: number) => inner.accountTransactions(a, s, l),
    accountSequenceNumber: (a: string) => inner.accountSequenceNumber(a),
    blockByHeight: (h: U64, w: boolean) => inner.blockByHeight(h, w),
    appendBlock: (b) => inner.appendBlock(b),
    pruneBelow: (v: U64) => inner.pruneBelow(v),
    close: () => {},
    released,
    transactionBytesByVersion(version: U64) {
      const t = inner.transactionByVersion(version)
      return t === null ? null : Buffer.from(mark(t))
    },
    accountTransactionsBytes(address: string, start: U64, limit: number) {
      const page = inner.accountTransactions(address, start, limit)
      const first = page[0]
      return { body: Buffer.from(`[${page.map(mark).join(',')}]`), count: page.length, firstSequenceNumber: first === undefined ? null : Number((first as { sequence_number: string }).sequence_number) }
    },
    releaseBytes(body: Uint8Array) {
      released.push(body)
    },
  }
  return { store, inner, mark }
}

describe('routes send a store’s bytes as they are when it has them', () => {
  it('by_version and account pages answer with the bytes; each page body is given back once the answer is sent', async () => {
    const { store, mark } = byteStore()
    const server = await createServer({ store })
    const one = await server.fastify.inject({ method: 'GET', url: '/v1/transactions/by_version/3' })
    expect(one.statusCode).toBe(200)
    expect(one.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(one.body).toBe(mark(storeOf(blocks).transactionByVersion(3)))
    const res = await server.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(1)}/transactions?start=1&limit=2` })
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe(`[${storeOf(blocks).accountTransactions(addr(1), 1, 2).map(mark).join(',')}]`)
    expect(store.released.map((b) => Buffer.from(b).toString())).toEqual([res.body])
  })

  it('a start that was pruned is still a 410, found from the page’s first sequence number; an empty page past the end is []', async () => {
    const { store, inner } = byteStore()
    const server = await createServer({ store })
    inner.pruneBelow(Number(blocks[2]?.first_version))
    const pruned = await server.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(1)}/transactions?start=0&limit=2` })
    expect(pruned.statusCode).toBe(410)
    expect((pruned.json() as { error_code: string }).error_code).toBe('version_pruned')
    const past = await server.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(1)}/transactions?start=99` })
    expect([past.statusCode, past.body]).toEqual([200, '[]'])
  })

  it('a page without start comes from the store’s latest page in one read when it has one, the same bytes, given back once sent; a start still reads from it', async () => {
    const { store, inner } = byteStore()
    const page = store.accountTransactionsBytes as NonNullable<LedgerStore['accountTransactionsBytes']>
    const asked: [string, number][] = []
    const latest = (address: string, limit: number) => {
      asked.push([address, limit])
      return page(address, Math.max(Number(inner.accountSequenceNumber(address)) - limit, 0), limit)
    }
    const plain = await createServer({ store })
    const before = await plain.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(1)}/transactions?limit=2` })
    const server = await createServer({ store: { ...store, latestAccountTransactionsBytes: latest } })
    const res = await server.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(1)}/transactions?limit=2` })
    expect([res.statusCode, res.headers['content-type'], res.body]).toEqual([200, 'application/json; charset=utf-8', before.body])
    expect(asked).toEqual([[addr(1), 2]])
    expect(store.released.map((b) => Buffer.from(b).toString()).slice(-1)).toEqual([res.body])
    await server.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(1)}/transactions?start=0&limit=2` })
    expect(asked).toHaveLength(1)
    for (const body of ['{}', '[{},{},{}]']) {
      const spoiled = await createServer({ store: { ...store, latestAccountTransactionsBytes: () => ({ body: Buffer.from(body), count: body.length > 2 ? 3 : 0, firstSequenceNumber: body.length > 2 ? 0 : null }) } })
      expect((await spoiled.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(1)}/transactions?limit=2` })).statusCode, body).toBe(500)
    }
  })

  it('bytes that break the contract are a 500, not a wrong answer: another version, a body that is not an array, more than limit, a first before start', async () => {
    const cases: [(s: ReturnType<typeof byteStore>['store']) => void, string][] = [
      [(s) => (s.transactionBytesByVersion = () => Buffer.from(JSON.stringify(storeOf(blocks).transactionByVersion(2)))), '/v1/transactions/by_version/3'],
      [(s) => (s.transactionBytesByVersion = () => Buffer.from('"text"')), '/v1/transactions/by_version/3'],
      [(s) => (s.accountTransactionsBytes = () => ({ body: Buffer.from('{}'), count: 0, firstSequenceNumber: null })), `/v1/accounts/${addr(1)}/transactions?limit=2`],
      [(s) => (s.accountTransactionsBytes = () => ({ body: Buffer.from('[{},{},{}]'), count: 3, firstSequenceNumber: 0 })), `/v1/accounts/${addr(1)}/transactions?limit=2`],
      [(s) => (s.accountTransactionsBytes = () => ({ body: Buffer.from('[{}]'), count: 1, firstSequenceNumber: 0 })), `/v1/accounts/${addr(1)}/transactions?start=1&limit=2`],
      [(s) => (s.accountTransactionsBytes = () => ({ body: Buffer.from('[{}]'), count: 0, firstSequenceNumber: null })), `/v1/accounts/${addr(1)}/transactions?limit=2`],
    ]
    for (const [spoil, url] of cases) {
      const { store } = byteStore()
      spoil(store)
      const server = await createServer({ store })
      expect((await server.fastify.inject({ method: 'GET', url })).statusCode, url).toBe(500)
    }
  })
})
