import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type ReadApiServer } from '../../src/api/index.js'
import type { U64 } from '../../src/core/u64.js'
import { ingestJsonLines } from '../../src/ledger/ingest.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { BlockBytes, LedgerStore } from '../../src/ledger/store/store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { expectError } from '../helpers/api-schemas.js'
import { storeOf } from '../helpers/api-server.js'
import { ChainBuilder } from '../helpers/chain-builder.js'

const SAMPLE = join(import.meta.dirname, '../../data/chain.jsonl')
const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-block-bytes-'))

/** `store` with only the reads every store has: what the route answers from a store without `blockBytesByHeight`. */
function objectReads(store: LedgerStore): LedgerStore {
  return {
    ledgerInfo: () => store.ledgerInfo(),
    transactionByVersion: (v) => store.transactionByVersion(v),
    accountTransactions: (a, s, l) => store.accountTransactions(a, s, l),
    accountSequenceNumber: (a) => store.accountSequenceNumber(a),
    blockByHeight: (h, w) => store.blockByHeight(h, w),
    appendBlock: (b) => store.appendBlock(b),
    pruneBelow: (v) => store.pruneBelow(v),
    close: () => {},
  }
}

/** Counts the calls of `store.blockBytesByHeight`, so a test knows which path answered. */
function counted(store: { blockBytesByHeight(height: U64, withTransactions: boolean): BlockBytes | null }): { calls: number } {
  const count = { calls: 0 }
  const read = store.blockBytesByHeight.bind(store)
  store.blockBytesByHeight = (height, withTransactions) => {
    count.calls++
    return read(height, withTransactions)
  }
  return count
}

/** What a client sees of an answer: status, body and every header but the request's id. */
async function seen(server: ReadApiServer, method: 'GET' | 'HEAD', url: string) {
  const res = await server.fastify.inject({ method, url })
  const { 'x-request-id': _, date: __, ...headers } = res.headers
  return { status: res.statusCode, headers, body: res.body }
}

describe('GET /v1/blocks/by_height/{h} from a store’s bytes (blockBytesByHeight)', () => {
  let memory: MemoryStore
  let sqlite: SqliteStore
  let heights: number[]
  beforeAll(async () => {
    memory = await MemoryStore.fromJsonLines(SAMPLE)
    sqlite = SqliteStore.open(join(dir, 'sample.db'))
    await ingestJsonLines(SAMPLE, sqlite)
    const lines = readFileSync(SAMPLE, 'utf8').split('\n').filter((l) => l !== '')
    const first = Number((JSON.parse(lines[0] as string) as BlockJson).block_height)
    // Every 37th block of the sample, its first and last, and one past the end (404).
    heights = [...Array.from({ length: Math.ceil(lines.length / 37) }, (_, i) => first + 37 * i), first + lines.length - 1, first + lines.length]
  }, 60_000)
  afterAll(() => {
    sqlite?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers byte for byte as from blockByHeight, headers and HEAD included, on the sample chain, for the memory and SQLite stores, with and without transactions', async () => {
    for (const store of [memory, sqlite]) {
      const calls = counted(store)
      const bytes = await createServer({ store })
      const objects = await createServer({ store: objectReads(store) })
      let compared = 0
      for (const h of heights) {
        for (const q of ['?with_transactions=true', '', '?with_transactions=false']) {
          for (const method of ['GET', 'HEAD'] as const) {
            const url = `/v1/blocks/by_height/${h}${q}`
            const want = await seen(objects, method, url)
            expect(await seen(bytes, method, url), `${store.constructor.name} ${method} ${url}`).toEqual(want)
            if (want.status === 200) compared++
          }
        }
      }
      expect(compared).toBe(6 * (heights.length - 1))
      expect(calls.calls).toBe(6 * heights.length - 6)
      await bytes.close()
      await objects.close()
    }
  })

  it('answers 410 block_pruned below the oldest block and 404 block_not_found above the newest, as from blockByHeight', async () => {
    const chain = new ChainBuilder({ height: 10, version: 100 })
    const blocks = chain.blocks(5, () => [{ sender: 1 }])
    const store = storeOf(blocks)
    store.pruneBelow(Number(blocks[2]?.first_version))
    const bytes = await createServer({ store })
    const objects = await createServer({ store: objectReads(store) })
    for (const [url, status, code] of [
      ['/v1/blocks/by_height/11?with_transactions=true', 410, 'block_pruned'],
      ['/v1/blocks/by_height/15?with_transactions=true', 404, 'block_not_found'],
      ['/v1/blocks/by_height/15', 404, 'block_not_found'],
    ] as const) {
      const res = await bytes.fastify.inject({ method: 'GET', url })
      expectError(res, status, code)
      expect((await seen(bytes, 'GET', url)).body).toBe((await seen(objects, 'GET', url)).body)
    }
  })

  it('a store without blockBytesByHeight is served from blockByHeight, as before', async () => {
    const blocks = new ChainBuilder({ height: 3, version: 20 }).blocks(3, () => [{ sender: 2 }])
    const server = await createServer({ store: objectReads(storeOf(blocks)) })
    const b = blocks[1] as BlockJson
    const res = await server.fastify.inject({ method: 'GET', url: '/v1/blocks/by_height/4?with_transactions=true' })
    expect(res.body).toBe(JSON.stringify(b))
    const bare = await server.fastify.inject({ method: 'GET', url: '/v1/blocks/by_height/4' })
    expect(bare.body).toBe(JSON.stringify({ ...b, transactions: null }))
  })

  it('gives the memory store each body back once the answer is sent, so its buffer is written again', async () => {
    const blocks = new ChainBuilder({ height: 3, version: 20 }).blocks(3, () => [{ sender: 2 }])
    const store = storeOf(blocks)
    const released: string[] = []
    const release = store.releaseBytes.bind(store)
    store.releaseBytes = (body) => {
      released.push(Buffer.from(body).toString())
      release(body)
    }
    const server = await createServer({ store })
    const a = await server.fastify.inject({ method: 'GET', url: '/v1/blocks/by_height/4?with_transactions=true' })
    const b = await server.fastify.inject({ method: 'GET', url: '/v1/blocks/by_height/5?with_transactions=true' })
    expect(released).toEqual([a.body, b.body])
    expect(a.body).toBe(JSON.stringify(blocks[1]))
    expect(b.body).toBe(JSON.stringify(blocks[2]))
  })

  it('bytes that break the contract are a 500, not a wrong answer: another block, a header without the range, a cut body, transactions missing, no bytes', async () => {
    const blocks = new ChainBuilder({ height: 3, version: 20 }).blocks(3, () => [{ sender: 2 }, { sender: 3 }])
    const good = storeOf(blocks)
    const answer = (h: U64, w: boolean) => good.blockBytesByHeight(h, w) as BlockBytes
    const text = (b: BlockBytes) => Buffer.from(b.body).toString()
    const cases: [string, (h: U64, w: boolean) => unknown][] = [
      ['/v1/blocks/by_height/4?with_transactions=true', () => answer(5, true)],
      ['/v1/blocks/by_height/4?with_transactions=true', (h, w) => ({ ...answer(h, w), firstVersion: 19 })],
      ['/v1/blocks/by_height/4?with_transactions=true', (h, w) => ({ ...answer(h, w), lastVersion: 10 })],
      ['/v1/blocks/by_height/4?with_transactions=true', (h, w) => ({ ...answer(h, w), body: Buffer.from(text(answer(h, w)).slice(0, -1)) })],
      ['/v1/blocks/by_height/4?with_transactions=true', (h, w) => ({ ...answer(h, w), count: answer(h, w).count - 1 })],
      ['/v1/blocks/by_height/4?with_transactions=true', (h) => answer(h, false)],
      ['/v1/blocks/by_height/4', (h) => ({ ...answer(h, true), count: 0 })],
      ['/v1/blocks/by_height/4', (h, w) => ({ ...answer(h, w), body: text(answer(h, w)) })],
      ['/v1/blocks/by_height/4', () => 'bytes'],
    ]
    for (const [url, spoilt] of cases) {
      const store = Object.assign(objectReads(good), { blockBytesByHeight: spoilt as LedgerStore['blockBytesByHeight'] })
      const server = await createServer({ store })
      expect((await server.fastify.inject({ method: 'GET', url })).statusCode, `${url} ${spoilt.toString()}`).toBe(500)
    }
    const server = await createServer({ store: Object.assign(objectReads(good), { blockBytesByHeight: answer }) })
    expect((await server.fastify.inject({ method: 'GET', url: '/v1/blocks/by_height/4?with_transactions=true' })).statusCode).toBe(200)
  })
})
