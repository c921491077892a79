import * as grpc from '@grpc/grpc-js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { openLedger } from '../../../src/cli/open-store.js'
import { StreamChainError, StreamResponseError, StreamUnavailableError } from '../../../src/follow/stream/errors.js'
import { ingestFromStream, type IngestStreamOptions } from '../../../src/follow/stream/ingest-stream.js'
import { startStreamServer, type StreamServer, type StreamServerOptions } from '../../../src/follow/stream/stream-server.js'
import { LedgerUnavailableError } from '../../../src/ledger/store/database-error.js'
import type { BatchAppendStore } from '../../../src/ledger/store/store.js'
import type { BlockJson } from '../../../src/ledger/store/types.js'
import { sampleChain } from './helpers/sample.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-stream-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const servers: StreamServer[] = []
const stores: BatchAppendStore[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
  for (const s of stores.splice(0)) await s.close()
})

async function ledger(chainId = 4): Promise<BatchAppendStore> {
  const { store } = await openLedger(join(dir, `l${n++}.db`), { readonly: false, chainId })
  stores.push(store)
  return store
}

async function serve(options: Partial<StreamServerOptions> & Pick<StreamServerOptions, 'chain'>): Promise<StreamServer> {
  const s = await startStreamServer({ chainId: 4, ...options })
  servers.push(s)
  return s
}

const FAST = { baseDelayMs: 1, maxDelayMs: 4 }
const ingest = (o: Partial<IngestStreamOptions> & Pick<IngestStreamOptions, 'endpoint' | 'store'>) => ingestFromStream({ retry: FAST, ...o })

describe('ingestFromStream', () => {

  it('rides out a database outage: a commit lost after it landed and one refused before are retried, no block lost or appended twice', async () => {
    const { blocks, chain } = sampleChain(30)
    const server = await serve({ chain, endAtTip: true })
    const inner = await ledger()
    let calls = 0
    // The second commit lands but its answer is lost; the third is refused before it lands.
    // Either commit method: the ingest hands a store with appendChecked its checked blocks.
    const store = new Proxy(inner, {
      get(target, key) {
        if (key !== 'appendBlocks' && key !== 'appendChecked') {
          const value = Reflect.get(target, key, target)
          return typeof value === 'function' ? value.bind(target) : value
        }
        const commit = (Reflect.get(target, key, target) as (some: readonly unknown[]) => unknown).bind(target)
        return async (some: readonly unknown[]) => {
          calls++
          if (calls === 3) throw new LedgerUnavailableError('connection lost before the commit')
          const result = await commit(some)
          if (calls === 2) throw new LedgerUnavailableError('connection lost after the commit')
          return result
        }
      },
    })
    const outages: string[] = []
    const last = blocks[blocks.length - 1] as BlockJson
    const summary = await ingest({ endpoint: server.url, store, startingVersion: '1', toVersion: last.last_version, batchSize: 7, batchBlocks: 8, outage: { initialDelayMs: 1, maxDelayMs: 2, onOutage: (e) => outages.push(e.error.message) } })
    expect(outages).toEqual(['connection lost after the commit', 'connection lost before the commit'])
    expect(summary.height).toBe(Number(last.block_height))
    for (const b of blocks) expect(JSON.stringify(await inner.blockByHeight(BigInt(b.block_height), true))).toBe(JSON.stringify(b))
    expect(String((await inner.ledgerInfo())?.block_height)).toBe(String(last.block_height))
  })
  it('blocks split across responses of any size are assembled whole; --to-version stops on the last transaction of its block', async () => {
    const { blocks, chain } = sampleChain(40)
    const server = await serve({ chain })
    const store = await ledger()
    const inside = blocks[20] as BlockJson
    expect(BigInt(inside.last_version) > BigInt(inside.first_version)).toBe(true)
    const summary = await ingest({ endpoint: server.url, store, startingVersion: '1', toVersion: inside.first_version, batchSize: 3 })
    expect(summary.height).toBe(Number(inside.block_height))
    expect(summary.ledger_version).toBe(Number(inside.last_version))
    expect(JSON.stringify(await store.blockByHeight(BigInt(inside.block_height), true))).toBe(JSON.stringify(inside))
  })

  it('resumes after the ledger newest block; overlapping and repeated versions are checked and skipped', async () => {
    const { blocks, chain } = sampleChain(30)
    const store = await ledger()
    await store.appendBlocks(blocks.slice(0, 10))
    const server = await serve({
      chain,
      endAtTip: true,
      // Every response also re-sends the 5 versions before the one asked for.
      fault: ({ from, to }) => ({ kind: 'send', from: from - 5n < 1n ? 1n : from - 5n, to }),
    })
    const summary = await ingest({ endpoint: server.url, store, toVersion: (blocks[29] as BlockJson).last_version, batchSize: 10 })
    expect(summary.appended).toBe(20)
    expect(server.stats.calls).toBe(1)
    expect((await store.ledgerInfo())?.block_height).toBe(Number((blocks[29] as BlockJson).block_height))
  })

  it('a repeated version that differs from the ledger is refused as another chain', async () => {
    const { blocks, chain } = sampleChain(12)
    const store = await ledger()
    const forked = blocks.slice(0, 10).map((b, i) => (i === 9 ? { ...b, transactions: b.transactions.map((t, k) => (k === b.transactions.length - 1 ? { ...t, hash: `0x${'ab'.repeat(32)}` } : t)) } : b)) as BlockJson[]
    await store.appendBlocks(forked)
    const server = await serve({ chain, fault: ({ from, to }) => ({ kind: 'send', from: from - 1n, to }) })
    const error = await ingest({ endpoint: server.url, store, toVersion: (blocks[11] as BlockJson).last_version }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StreamResponseError)
    expect((error as Error).message).toMatch(/has hash 0x\w+ on the stream but 0xabab\w+ in the ledger: the stream serves another chain or fork/)
    expect((await store.ledgerInfo())?.block_height).toBe(Number((blocks[9] as BlockJson).block_height))
  })

  it('a gap is refused and nothing after it is written', async () => {
    const { blocks, chain } = sampleChain(20)
    const store = await ledger()
    const server = await serve({ chain, fault: ({ response, from, to }) => (response === 1 ? { kind: 'send', from: from + 2n, to } : undefined) })
    const error = await ingest({ endpoint: server.url, store, startingVersion: '1', batchSize: 10 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StreamResponseError)
    expect((error as Error).message).toMatch(/gap: version \d+ came where \d+ was expected/)
    const info = await store.ledgerInfo()
    expect(BigInt(info?.ledger_version ?? 0) < 11n).toBe(true)
    void blocks
  })

  it("a wrong chain id stops before anything is written, naming both ids", async () => {
    const { chain } = sampleChain(5)
    const server = await serve({ chain, chainId: 1 })
    const store = await ledger(4)
    const error = await ingest({ endpoint: server.url, store, startingVersion: '1' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StreamChainError)
    expect((error as StreamChainError).code).toBe('invalid_database')
    expect((error as Error).message).toMatch(/serves chain id 1, but .* holds chain id 4; nothing was written/)
    expect(await store.ledgerInfo()).toBeNull()
  })

  it('an expired key stops with a message naming the endpoint and never the key', async () => {
    const { chain } = sampleChain(5)
    const server = await serve({ chain, apiKey: 'good-key' })
    const store = await ledger()
    const error = await ingest({ endpoint: server.url, store, apiKey: 'expired-secret-key', startingVersion: '1' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StreamResponseError)
    expect((error as StreamResponseError).status).toBe('UNAUTHENTICATED')
    expect((error as Error).message).toContain(server.url)
    expect((error as Error).message).not.toContain('expired-secret-key')
    expect(server.stats.calls).toBe(1)
    const ok = await ingest({ endpoint: server.url, store, apiKey: 'good-key', startingVersion: '1', toVersion: '3' })
    expect(ok.appended).toBeGreaterThan(0)
  })

  it('a service that stays unavailable gives up after the retries, keeping what was appended', async () => {
    const { chain } = sampleChain(10)
    const server = await serve({ chain, fault: ({ call, response }) => (call > 0 || response > 0 ? { kind: 'fail', status: grpc.status.RESOURCE_EXHAUSTED, details: 'rate limited' } : undefined) })
    const store = await ledger()
    const error = await ingest({ endpoint: server.url, store, startingVersion: '1', batchSize: 8, retry: { ...FAST, retries: 3 } }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StreamUnavailableError)
    expect((error as Error).message).toMatch(/RESOURCE_EXHAUSTED: rate limited/)
    expect(server.stats.calls).toBe(4)
    expect(await store.ledgerInfo()).not.toBeNull()
  })

  it('an empty ledger without a starting version starts at the stream newest block; a start inside a block skips to the next block', async () => {
    const { blocks, chain } = sampleChain(10)
    const server = await serve({ chain })
    const store = await ledger()
    const newest = blocks[9] as BlockJson
    const a = await ingest({ endpoint: server.url, store, toVersion: newest.last_version })
    expect(a).toMatchObject({ appended: 1, height: Number(newest.block_height), skipped: 0 })
    const other = await ledger()
    const b4 = blocks[4] as BlockJson
    const b = await ingest({ endpoint: server.url, store: other, startingVersion: String(BigInt(b4.first_version) + 1n), toVersion: (blocks[6] as BlockJson).last_version })
    expect(b.skipped).toBe(Number(BigInt(b4.last_version) - BigInt(b4.first_version)))
    expect((await other.ledgerInfo())?.oldest_block_height).toBe(Number((blocks[5] as BlockJson).block_height))
  })

  it('follows a live stream until stopped; a slow writer holds the stream back (bounded responses in flight)', async () => {
    const { blocks, chain } = sampleChain(600)
    const server = await serve({ chain })
    const store = await ledger()
    let appended = 0
    const gate: (() => void)[] = []
    const slowly = (commit: (b: readonly never[]) => unknown) => async (b: readonly never[]) => {
      await new Promise<void>((resolve) => gate.push(resolve))
      const r = await commit(b)
      appended++
      return r
    }
    // Either commit method: the ingest hands a store with appendChecked its checked blocks.
    const slow = new Proxy(store, {
      get: (target, key) => {
        if (key === 'appendBlocks' || key === 'appendChecked') return slowly((Reflect.get(target, key, target) as (b: readonly never[]) => unknown).bind(target))
        const v = Reflect.get(target, key, target) as unknown
        return typeof v === 'function' ? v.bind(target) : v
      },
    })
    const controller = new AbortController()
    // HTTP/2's smallest window: the sample is smaller than the default one.
    const done = ingest({ endpoint: server.url, store: slow, startingVersion: '1', batchSize: 2, batchBlocks: 1, flowControlWindow: 65_535, signal: controller.signal })
    let maxAhead = 0
    // Release one commit at a time; meanwhile the server may only run a bounded way ahead.
    while (appended < 40) {
      await new Promise((r) => setTimeout(r, 5))
      maxAhead = Math.max(maxAhead, server.stats.responses - appended)
      gate.shift()?.()
    }
    // Each response carries 2 transactions. Without flow control the server would have written
    // all of them by now; with it, it runs ahead only by what the HTTP/2 windows and grpc-js's
    // read buffer hold (bytes, so a few dozen of these small responses).
    const total = Math.ceil(chain.transactions.length / 2)
    expect(total).toBeGreaterThan(800)
    expect(maxAhead).toBeLessThan(total / 4)
    expect(server.stats.responses).toBeLessThan(total / 3)
    while (gate.length > 0 || (await store.ledgerInfo())?.block_height !== Number((blocks.at(-1) as BlockJson).block_height)) {
      gate.shift()?.()
      await new Promise((r) => setTimeout(r, 1))
    }
    controller.abort()
    const summary = await done
    expect(summary.height).toBe(Number((blocks.at(-1) as BlockJson).block_height))
  })
})
