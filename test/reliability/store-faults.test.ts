import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createServer, type ReadApiServer } from '../../src/api/index.js'
import { createEstimator } from '../../src/core/estimator.js'
import { gasEstimateToJson } from '../../src/core/wire.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { LedgerInfo, LedgerStore } from '../../src/ledger/store/store.js'
import type { BlockJson, TransactionJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { expectError } from '../helpers/api-schemas.js'
import { headerNames, storeOf } from '../helpers/api-server.js'
import { FaultStore, READ_METHODS, type ReadMethod } from '../helpers/fault-store.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-faults-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The deadline the fault tests give the server: short, so a hang is proven bounded quickly. */
const STORE_TIMEOUT_MS = 150
const FULL3 = { full_block_txns: 3 } as const

const chain = new ChainBuilder()
const blocks = chain.blocks(12, (i) => [{ sender: 1 }, { sender: 2 + (i % 2), gas_unit_price: 100 + i * 10 }, { sender: 7, nonce: i }])

/** Requests that read through `method`, with the status a failure of it must give. */
const BY_METHOD: Record<ReadMethod, { urls: string[]; status: number }> = {
  ledgerInfo: { urls: ['/v1', '/v1/estimate_gas_price', '/v1/transactions/by_version/3', `/v1/accounts/${addr(1)}/transactions`, '/v1/blocks/by_height/2'], status: 503 },
  transactionByVersion: { urls: ['/v1/transactions/by_version/3'], status: 500 },
  accountTransactions: { urls: [`/v1/accounts/${addr(1)}/transactions?start=0`, `/v1/accounts/${addr(2)}/transactions?limit=2`], status: 500 },
  accountSequenceNumber: { urls: [`/v1/accounts/${addr(1)}/transactions`], status: 500 },
  blockByHeight: { urls: ['/v1/blocks/by_height/2?with_transactions=true', '/v1/blocks/by_height/5'], status: 500 },
}

async function serverOver(store: LedgerStore, options: object = {}): Promise<ReadApiServer> {
  return createServer({ store, storeTimeoutMs: STORE_TIMEOUT_MS, estimator: FULL3, ...options })
}

/** Status and body of every URL, for "after the store recovers the answers are what they were". */
async function answers(server: ReadApiServer, urls: string[]): Promise<string[]> {
  return Promise.all(urls.map(async (u) => {
    const r = await server.fastify.inject({ method: 'GET', url: u })
    return `${r.statusCode} ${r.body}`
  }))
}

/** A 5xx that is the spec's error object, says nothing of the cause, and keeps the ledger headers when it can. */
function expectFault(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number): void {
  const body = expectError(res, status, 'internal_error')
  expect(res.body).not.toContain('SECRET')
  expect(body.message).not.toMatch(/Error|sqlite|\/var|at .*:\d+/)
  if (status === 500) for (const h of headerNames()) expect(res.headers[h]).toMatch(/^\d+$/)
}

const ALL_URLS = [...new Set(Object.values(BY_METHOD).flatMap((m) => m.urls)), '/v1/estimate_gas_price']

describe('store faults', () => {
  it('a store read that throws or rejects: 500 (503 for the ledger info) with the error object and no internals; healed, every answer is as before', async () => {
    const store = new FaultStore(storeOf(blocks))
    const server = await serverOver(store)
    const before = await answers(server, ALL_URLS)
    for (const method of READ_METHODS) {
      for (const kind of ['throw', 'reject'] as const) {
        store.set(method, { kind })
        for (const url of BY_METHOD[method].urls) expectFault(await server.fastify.inject({ method: 'GET', url }), BY_METHOD[method].status)
        store.heal()
        expect(await answers(server, ALL_URLS)).toEqual(before)
      }
    }
  })

  it(`a store read that hangs is answered 503 at storeTimeoutMs (${STORE_TIMEOUT_MS} ms) on the clock, not a tick before, on every endpoint`, async () => {
    const store = new FaultStore(storeOf(blocks))
    const server = await serverOver(store)
    // Only the timers are fake: the request runs for real, the deadline's clock is moved by hand.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      for (const method of READ_METHODS) {
        store.set(method, { kind: 'hang' })
        for (const url of BY_METHOD[method].urls) {
          const hanging = store.hanging
          let reply: { statusCode: number; headers: Record<string, unknown>; body: string } | undefined
          const pending = server.fastify.inject({ method: 'GET', url }).then((r) => (reply = r))
          // The read has reached the store and hangs there: the deadline is armed from here.
          while (store.hanging === hanging) await new Promise((r) => setImmediate(r))
          await vi.advanceTimersByTimeAsync(STORE_TIMEOUT_MS - 1)
          for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
          expect(reply, `${url} answered before the deadline`).toBeUndefined()
          await vi.advanceTimersByTimeAsync(1)
          await pending
          expectError(reply as NonNullable<typeof reply>, 503, 'internal_error')
          expect(reply?.body).toMatch(method === 'ledgerInfo' ? /Ledger info is unavailable/ : new RegExp(`did not answer within ${STORE_TIMEOUT_MS} ms`))
        }
        store.heal()
      }
    } finally {
      vi.useRealTimers()
    }
  })

  it(`a store read that hangs: 503 from the deadline on every endpoint, 40 at once over sockets, while the process keeps serving; healed, answers are right`, async () => {
    const store = new FaultStore(storeOf(blocks))
    const server = await serverOver(store)
    const url = await server.listen({ port: 0, host: '127.0.0.1' })
    try {
      const before = await answers(server, ALL_URLS)
      for (const method of READ_METHODS) {
        store.set(method, { kind: 'hang' })
        const hanging = store.hanging
        const urls = Array.from({ length: 40 }, (_, i) => BY_METHOD[method].urls[i % BY_METHOD[method].urls.length] as string)
        const replies = await Promise.all(urls.map(async (u) => {
          const r = await fetch(`${url}${u}`)
          return { statusCode: r.status, headers: Object.fromEntries(r.headers), body: await r.text() }
        }))
        // Every request reached the hanging read, which never settles: only the deadline can have answered.
        expect(store.hanging - hanging).toBeGreaterThanOrEqual(40)
        for (const r of replies) {
          expectError(r, 503, 'internal_error')
          expect(r.body).toMatch(method === 'ledgerInfo' ? /Ledger info is unavailable/ : new RegExp(`did not answer within ${STORE_TIMEOUT_MS} ms`))
        }
        store.heal()
        expect(await answers(server, ALL_URLS)).toEqual(before)
      }
      expect(store.hanging).toBeGreaterThanOrEqual(40 * READ_METHODS.length)
    } finally {
      await server.close()
    }
  })

  it('the estimate catch-up over a hanging store answers 503 by the deadline, and catches up once the store answers', async () => {
    const inner = storeOf(blocks)
    const store = new FaultStore(inner)
    const server = await serverOver(store)
    const more = chain.blocks(5, (i) => [{ sender: 20 + i, gas_unit_price: 900 }, { sender: 40 + i, gas_unit_price: 900 }, { sender: 60 + i, gas_unit_price: 950 }])
    for (const b of more) inner.appendBlock(b)
    store.set('blockByHeight', { kind: 'hang' })
    const res = await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' })
    // The catch-up read hangs for ever, so the answer came from the deadline.
    expect(store.hanging).toBeGreaterThanOrEqual(1)
    expectError(res, 503, 'internal_error')
    expect(res.body).toMatch(new RegExp(`did not answer within ${STORE_TIMEOUT_MS} ms`))
    store.heal()
    const ok = await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' })
    expect(ok.statusCode).toBe(200)
    expect(ok.body).toBe(reference([...blocks, ...more]))
    expect(ok.headers['x-node-block-height']).toBe('16')
  })

  /** Method, what it answers, the garbage (from its arguments and the right answer), the URLs where it is garbage. */
  const GARBAGE: [ReadMethod, string, (args: unknown[], right: unknown) => unknown, string[]?][] = [
    ['ledgerInfo', 'an empty object', () => ({})],
    ['ledgerInfo', 'a JSON string instead of an object', (_a, r) => JSON.stringify(r)],
    ['ledgerInfo', 'a u64 as a string', (_a, r) => ({ ...(r as LedgerInfo), ledger_version: String((r as LedgerInfo).ledger_version) })],
    ['ledgerInfo', 'a chain id above u8', (_a, r) => ({ ...(r as LedgerInfo), chain_id: 300 })],
    ['ledgerInfo', 'a negative height', (_a, r) => ({ ...(r as LedgerInfo), block_height: -1 })],
    ['ledgerInfo', 'an oldest version above the newest', (_a, r) => ({ ...(r as LedgerInfo), oldest_ledger_version: Number((r as LedgerInfo).ledger_version) + 1 })],
    ['transactionByVersion', 'the transaction of another version', (a, _r) => storeOf(blocks).transactionByVersion(Number(a[0]) + 1)],
    ['transactionByVersion', 'a JSON string', (_a, r) => JSON.stringify(r)],
    ['transactionByVersion', 'an array', (_a, r) => [r]],
    ['transactionByVersion', 'a number', () => 42],
    ['transactionByVersion', 'an object without a type', (a) => ({ version: String(a[0]) })],
    ['transactionByVersion', 'a value JSON cannot hold (bigint)', (_a, r) => ({ ...(r as object), gas_used: 5n })],
    ['transactionByVersion', 'a value JSON cannot hold (cycle)', (_a, r) => {
      const t: Record<string, unknown> = { ...(r as object) }
      t.changes = [t]
      return t
    }],
    ['accountTransactions', 'not an array', () => 'nothing'],
    ['accountTransactions', 'items that are not transactions', () => [{}, null]],
    ['accountTransactions', 'another sender’s transactions', () => storeOf(blocks).accountTransactions(addr(2), 0, 2)],
    ['accountTransactions', 'transactions out of order', (_a, r) => [...(r as TransactionJson[])].reverse()],
    ['accountTransactions', 'more than the limit', (a) => storeOf(blocks).accountTransactions(a[0] as string, 0, 100), [`/v1/accounts/${addr(2)}/transactions?limit=2`]],
    ['accountSequenceNumber', 'a negative number', () => -1],
    ['accountSequenceNumber', 'a string', () => '12'],
    ['accountSequenceNumber', 'a fraction', () => 1.5],
    ['accountSequenceNumber', 'NaN', () => Number.NaN],
    ['accountSequenceNumber', 'a bigint above u64', () => 2n ** 64n],
    ['blockByHeight', 'the block at another height', (a) => storeOf(blocks).blockByHeight(Number(a[0]) + 1, a[1] as boolean)],
    ['blockByHeight', 'a block missing a transaction', (_a, r) => ({ ...(r as BlockJson), transactions: (r as BlockJson).transactions.slice(1) }), ['/v1/blocks/by_height/2?with_transactions=true']],
    ['blockByHeight', 'transactions out of order', (_a, r) => ({ ...(r as BlockJson), transactions: [...(r as BlockJson).transactions].reverse() }), ['/v1/blocks/by_height/2?with_transactions=true']],
    ['blockByHeight', 'a string', () => 'block'],
  ]

  it('a store answering garbage (wrong types, another version, partial block, values JSON cannot hold): 500/503 with the error object; healed, answers are as before', async () => {
    const store = new FaultStore(storeOf(blocks))
    const server = await serverOver(store)
    const before = await answers(server, ALL_URLS)
    for (const [method, what, value, urls] of GARBAGE) {
      store.set(method, { kind: 'garbage', value })
      for (const url of urls ?? BY_METHOD[method].urls) {
        const res = await server.fastify.inject({ method: 'GET', url })
        if (res.statusCode !== BY_METHOD[method].status) throw new Error(`${method} answering ${what}: ${url} gave ${res.statusCode} ${res.body.slice(0, 200)}`)
        expectFault(res, res.statusCode)
      }
      store.heal()
      expect(await answers(server, ALL_URLS)).toEqual(before)
    }
  })

  it('a SQLite row whose JSON is corrupt: 500 for what reads it (that version, its account page, the estimate whose window holds its block); the rest of the ledger serves', async () => {
    const path = join(dir, 'corrupt.db')
    const writer = SqliteStore.open(path)
    for (const b of blocks) writer.appendBlock(b)
    writer.close()
    const raw = new Database(path)
    // Keys are biased by 2^63 (sqlite-store.ts): version 2 (sender 2's first) is stored as 2 - 2^63.
    const changed = raw.prepare("UPDATE transactions SET json = '{\"version\": \"2\", trunc' WHERE version = ?").run(2n - (1n << 63n)).changes
    expect(changed).toBe(1)
    raw.close()
    const store = SqliteStore.open(path, { readonly: true })
    try {
      const server = await serverOver(store)
      expectFault(await server.fastify.inject({ method: 'GET', url: '/v1/transactions/by_version/2' }), 500)
      expectFault(await server.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(2)}/transactions?start=0` }), 500)
      expect((await server.fastify.inject({ method: 'GET', url: '/v1/transactions/by_version/3' })).statusCode).toBe(200)
      expect((await server.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(2)}/transactions?start=1` })).statusCode).toBe(200)
      expect((await server.fastify.inject({ method: 'GET', url: '/v1/blocks/by_height/1?with_transactions=true' })).statusCode).toBe(200)
      expect((await server.fastify.inject({ method: 'GET', url: '/v1' })).statusCode).toBe(200)
      // An estimate that silently left out a block it could not read would be wrong: none is served.
      expectFault(await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' }), 500)
    } finally {
      store.close()
    }
  })
})

/** The estimate a plain estimator fed every block gives: what the server must serve. */
function reference(all: readonly BlockJson[]): string {
  const e = createEstimator(FULL3)
  for (const b of all) e.ingest(parseBlockJson(b))
  return gasEstimateToJson(e.estimate())
}

describe('the estimate never comes from a half-ingested block', () => {
  /** Estimate body, ledger headers and `server.estimate()`: what must not move when an append fails. */
  async function snapshot(server: ReadApiServer) {
    const r = await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' })
    return { status: r.statusCode, body: r.body, height: r.headers['x-node-block-height'], version: r.headers['x-node-ledger-version'], estimate: JSON.stringify(server.estimate(), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) }
  }

  it('appendBlock refused half-way through the block (SQLite, sequence gap at its 3rd transaction): store, estimate and headers as before; the next good block moves them', async () => {
    const store = SqliteStore.open(join(dir, 'append.db'))
    try {
      const c = new ChainBuilder()
      const first = c.blocks(6, (i) => [{ sender: 1, gas_unit_price: 200 }, { sender: 2, gas_unit_price: 210 + i }, { sender: 3, gas_unit_price: 300 }])
      for (const b of first) store.appendBlock(b)
      const server = await serverOver(store)
      const before = await snapshot(server)
      const good = c.block({ users: [{ sender: 1, gas_unit_price: 900 }, { sender: 2, gas_unit_price: 900 }, { sender: 3, gas_unit_price: 900 }] })
      const bad = structuredClone(good)
      const third = bad.transactions[3] as { sequence_number: string }
      third.sequence_number = String(Number(third.sequence_number) + 5)
      await expect(server.appendBlock(bad)).rejects.toThrow(/transactions\[3\]\.sequence_number: gap/)
      expect(await snapshot(server)).toEqual(before)
      expect(store.ledgerInfo()?.block_height).toBe(5)
      await server.appendBlock(good)
      const after = await snapshot(server)
      expect(after.height).toBe('6')
      expect(after.body).toBe(reference([...first, good]))
    } finally {
      store.close()
    }
  })

  it('a block the engine cannot read (bad gas_unit_price in its last transaction) is refused before the store sees it; nothing moves', async () => {
    const c = new ChainBuilder()
    const server = await serverOver(storeOf(c.blocks(4, () => [{ sender: 1 }, { sender: 2 }, { sender: 3 }])))
    const before = await snapshot(server)
    const bad = c.block({ users: [{ sender: 1, gas_unit_price: 500 }, { sender: 2, gas_unit_price: 500 }, { sender: 3, gas_unit_price: 500 }] })
    ;(bad.transactions[3] as { gas_unit_price: string }).gas_unit_price = '-1'
    await expect(server.appendBlock(bad)).rejects.toThrow(/gas_unit_price/)
    expect(await snapshot(server)).toEqual(before)
  })

  it('a torn store (reports a block whose transactions are cut short): 500, the estimate stays; repaired, the estimate is the whole block’s', async () => {
    const c = new ChainBuilder()
    const whole = c.blocks(5, () => [{ sender: 1, gas_unit_price: 120 }, { sender: 2, gas_unit_price: 130 }, { sender: 3, gas_unit_price: 140 }])
    const torn = new TornStore(storeOf(whole))
    const server = await serverOver(torn)
    const before = await snapshot(server)
    const next = c.block({ users: [{ sender: 1, gas_unit_price: 5000 }, { sender: 2, gas_unit_price: 5000 }, { sender: 3, gas_unit_price: 5000 }] })
    torn.tear(next)
    const res = await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' })
    expectFault(res, 500)
    expect(JSON.stringify(server.estimate(), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).toBe(before.estimate)
    torn.repair()
    const ok = await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' })
    expect(ok.statusCode).toBe(200)
    expect(ok.body).toBe(reference([...whole, next]))
  })

  it('a catch-up that fails half-way (the 60th of 121 block reads) serves no estimate from the partial window; healed, it equals a fresh server’s', async () => {
    const c = new ChainBuilder()
    const old = c.blocks(10, () => [{ sender: 1, gas_unit_price: 100 }, { sender: 2, gas_unit_price: 100 }, { sender: 3, gas_unit_price: 100 }])
    const inner = storeOf(old)
    const store = new FaultStore(inner)
    const server = await serverOver(store)
    const before = await snapshot(server)
    // 200 new blocks: the feed is too far behind and starts over from the newest 121.
    const newer = c.blocks(200, (i) => (i < 150 ? [{ sender: 1, gas_unit_price: 2000 + i }, { sender: 2, gas_unit_price: 2000 }, { sender: 3, gas_unit_price: 2100 }] : []))
    for (const b of newer) inner.appendBlock(b)
    store.failAfter.blockByHeight = store.calls.blockByHeight + 60
    store.set('blockByHeight', { kind: 'throw' })
    expectFault(await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' }), 500)
    expect((await snapshot(server)).status).toBe(500)
    expect(JSON.stringify(server.estimate(), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).toBe(before.estimate)
    store.heal()
    const ok = await snapshot(server)
    const fresh = await serverOver(inner)
    expect(ok.status).toBe(200)
    expect(ok.body).toBe((await snapshot(fresh)).body)
    expect(ok.body).not.toBe(before.body)
  })
})

/** A store that, once `tear(block)` is called, reports `block` appended with half its transactions. */
class TornStore implements LedgerStore {
  private torn: BlockJson | null = null
  constructor(private readonly inner: MemoryStore) {}
  tear(block: BlockJson): void {
    this.torn = block
  }
  repair(): void {
    if (this.torn !== null) this.inner.appendBlock(this.torn)
    this.torn = null
  }
  ledgerInfo(): LedgerInfo | null {
    const i = this.inner.ledgerInfo()
    if (i === null || this.torn === null) return i
    return { ...i, block_height: Number(this.torn.block_height), ledger_version: Number(this.torn.last_version) }
  }
  transactionByVersion(v: number | bigint) {
    return this.inner.transactionByVersion(v)
  }
  accountTransactions(a: string, s: number | bigint, l: number) {
    return this.inner.accountTransactions(a, s, l)
  }
  accountSequenceNumber(a: string) {
    return this.inner.accountSequenceNumber(a)
  }
  blockByHeight(h: number | bigint, w: boolean): BlockJson | null {
    if (this.torn !== null && String(h) === this.torn.block_height) return { ...this.torn, transactions: this.torn.transactions.slice(0, 2) }
    return this.inner.blockByHeight(h, w)
  }
  appendBlock(b: BlockJson): void {
    this.inner.appendBlock(b)
  }
  pruneBelow(v: number | bigint): void {
    this.inner.pruneBelow(v)
  }
  close(): void {}
}
