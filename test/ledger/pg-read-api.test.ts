import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type ReadApiServer } from '../../src/api/index.js'
import { parseAddress } from '../../src/ledger/store/address.js'
import { ingestJsonLines } from '../../src/ledger/ingest.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { PgStore } from '../../src/ledger/postgres/pg-store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'

/**
 * The whole bundled chain through PostgreSQL and the read API, against a MemoryStore of the
 * file. It ingests the 15 MB sample and compares hundreds of answers twice, so it runs in
 * `npm run test:integration` (vitest.config.ts); test/ledger/pg-store.test.ts holds the store's
 * own behaviour on small chains in `npm test`.
 */
let server: TestPostgres
let url: string
beforeAll(async () => {
  server = await startTestPostgres()
  url = await server.createDatabase()
}, 120_000)
afterAll(async () => server?.close(), 60_000)

describe('PgStore behind the read API, the bundled chain', () => {
  const BUNDLED = join(import.meta.dirname, '../../data/chain.jsonl')

  /** Status, every header and the body of `url`, as one value to compare. */
  async function answer(server: ReadApiServer, url: string) {
    const res = await server.fastify.inject({ method: 'GET', url })
    // Every header but the date and the request id (a per-server counter) must match.
    const { date: _date, 'x-request-id': _id, ...headers } = res.headers
    return { url, status: res.statusCode, headers, body: res.body }
  }

  it('the bundled data/chain.jsonl ingested into PostgreSQL is served byte for byte as over a MemoryStore of the file, before and after pruning', { timeout: 120_000 }, async () => {
    const blocks = readFileSync(BUNDLED, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as BlockJson)
    const store = await PgStore.open(url, { schema: await server.createSchema(url) })
    const memory = await MemoryStore.fromJsonLines(BUNDLED)
    try {
      const summary = await ingestJsonLines(BUNDLED, store)
      expect(summary.appended).toBe(blocks.length)
      const overPg = await createServer({ store })
      const overMemory = await createServer({ store: memory })
      const first = blocks[0] as BlockJson
      const last = blocks[blocks.length - 1] as BlockJson
      const [v0, v1, h0, h1] = [first.first_version, last.last_version, first.block_height, last.block_height].map(Number) as [number, number, number, number]
      const senders = [...new Set(blocks.flatMap((b) => b.transactions.flatMap((t) => (t.type === 'user_transaction' ? [parseAddress(t.sender) as string] : []))))]
      const urls = ['/v1', '/v1/estimate_gas_price', `/v1/transactions/by_version/${v1 + 1}`, `/v1/blocks/by_height/${h1 + 1}`, '/v1/transactions/by_version/18446744073709551615']
      for (let v = v0; v <= v1; v += 97) urls.push(`/v1/transactions/by_version/${v}`)
      for (let h = h0; h <= h1; h += 41) urls.push(`/v1/blocks/by_height/${h}?with_transactions=${h % 2 === 0}`)
      for (const a of senders.filter((_, i) => i % 97 === 0)) urls.push(`/v1/accounts/${a}/transactions`, `/v1/accounts/${a}/transactions?start=1&limit=3`)
      expect(urls.length).toBeGreaterThan(250)
      const compare = async () => {
        for (const u of urls) expect(await answer(overPg, u)).toEqual(await answer(overMemory, u))
      }
      await compare()
      const cut = Math.floor((v0 + v1) / 2)
      await store.pruneBelow(cut)
      memory.pruneBelow(cut)
      await compare()
      await overPg.close()
      await overMemory.close()
    } finally {
      await store.close()
    }
  })
})
