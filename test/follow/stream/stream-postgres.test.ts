import { afterAll, beforeAll, expect, it } from 'vitest'
import { openLedger } from '../../../src/cli/open-store.js'
import { ingestFromStream } from '../../../src/follow/stream/ingest-stream.js'
import { startStreamServer } from '../../../src/follow/stream/stream-server.js'
import type { BlockJson } from '../../../src/ledger/store/types.js'
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres.js'
import { readApiAnswers, sampleChain } from './helpers/sample.js'

let server: TestPostgres
beforeAll(async () => {
  server = await startTestPostgres()
}, 120_000)
afterAll(async () => server?.close(), 60_000)

it('a PostgreSQL ledger fed from the stream answers the read API as one fed the same blocks directly', async () => {
  const { blocks, chain } = sampleChain(60)
  const stream = await startStreamServer({ chain, chainId: 4, maxBatchSize: 25 })
  const url = await server.createDatabase()
  const { store } = await openLedger(url, { readonly: false, chainId: 4 })
  const refUrl = await server.createDatabase()
  const { store: reference } = await openLedger(refUrl, { readonly: false, chainId: 4 })
  try {
    const summary = await ingestFromStream({ endpoint: stream.url, store, startingVersion: 1, toVersion: (blocks.at(-1) as BlockJson).last_version, batchBlocks: 7 })
    expect(summary.appended).toBe(60)
    await reference.appendBlocks(blocks)
    const want = await readApiAnswers(reference, blocks)
    const got = await readApiAnswers(store, blocks)
    for (const [u, body] of want) if (got.get(u) !== body) expect({ u, body: got.get(u) }).toEqual({ u, body })
  } finally {
    await store.close()
    await reference.close()
    await stream.close()
  }
}, 120_000)
