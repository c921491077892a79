import * as grpc from '@grpc/grpc-js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openLedger } from '../../../src/cli/open-store.js'
import { ingestFromStream } from '../../../src/follow/stream/ingest-stream.js'
import { startStreamServer } from '../../../src/follow/stream/stream-server.js'
import type { BatchAppendStore } from '../../../src/ledger/store/store.js'
import type { BlockJson } from '../../../src/ledger/store/types.js'
import { readApiAnswers, sampleChain } from './helpers/sample.js'

/*
 * The whole sample chain through a local stream, compared answer for answer with the same chain
 * ingested from its file. Some 30 s of reads on 2 cores: in INTEGRATION_TESTS.
 */
const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-stream-sample-'))
const stores: BatchAppendStore[] = []
afterAll(async () => {
  for (const s of stores) await s.close()
  rmSync(dir, { recursive: true, force: true })
})
let n = 0
async function ledger(): Promise<BatchAppendStore> {
  const { store } = await openLedger(join(dir, `l${n++}.db`), { readonly: false, chainId: 4 })
  stores.push(store)
  return store
}
const FAST = { baseDelayMs: 1, maxDelayMs: 4 }

describe('the sample chain through the stream', () => {
  let sample: ReturnType<typeof sampleChain>
  let reference: Map<string, string>
  let last: BlockJson
  beforeAll(async () => {
    sample = sampleChain()
    last = sample.blocks.at(-1) as BlockJson
    const store = await ledger()
    for (let i = 0; i < sample.blocks.length; i += 500) await store.appendBlocks(sample.blocks.slice(i, i + 500))
    reference = await readApiAnswers(store, sample.blocks)
  }, 120_000)

  it('a ledger filled from the stream, cut and resumed along the way, answers every read API request as the one filled from data/chain.jsonl', async () => {
    const cuts: string[] = []
    const server = await startStreamServer({
      chainId: 4,
      chain: sample.chain,
      endAtTip: true,
      fault: ({ call, response }) => {
        // Cut the first call mid-stream and end the second early: the ingest resumes after each.
        if (call === 0 && response === 3) return cuts.push('cut'), { kind: 'fail', status: grpc.status.UNAVAILABLE, details: 'connection reset' }
        if (call === 1 && response === 2) return cuts.push('end'), { kind: 'end' }
        return undefined
      },
    })
    const store = await ledger()
    const retries: string[] = []
    try {
    const summary = await ingestFromStream({ retry: FAST, endpoint: server.url, store, startingVersion: sample.blocks[0]?.first_version, toVersion: last.last_version, batchSize: 700, onRetry: (e) => retries.push(e.reason) })
    expect(cuts).toEqual(['cut', 'end'])
    expect(retries).toHaveLength(2)
    expect(retries[0]).toMatch(/UNAVAILABLE: connection reset/)
    expect(summary.appended).toBe(sample.blocks.length)
    expect(summary.ledger_version).toBe(Number(last.last_version))
    const answers = await readApiAnswers(store, sample.blocks)
    expect(answers.size).toBe(reference.size)
    for (const [url, body] of reference) if (answers.get(url) !== body) expect({ url, body: answers.get(url) }).toEqual({ url, body })
    } finally {
      await server.close()
    }
  }, 120_000)
})

