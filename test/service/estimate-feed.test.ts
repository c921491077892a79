import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { guardStore } from '../../src/api/plumbing/store-guard.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { LedgerInfo, RangeBlock } from '../../src/ledger/store/store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { EstimateFeed, type PublishedEstimates } from '../../src/service/estimate-feed.js'
import { resolveCalibratedConfig } from '../../src/core/calibrated/calibrated-config.js'
import { resolveConfig } from '../../src/core/config.js'
import { Estimator } from '../../src/core/estimator.js'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { faultyStore, storeOf } from '../helpers/api-server.js'

const CONFIG = resolveConfig({ full_block_txns: 3, low_block_history: 2, market_block_history: 4, aggressive_block_history: 8 })
/** Span max(8 + 1, 100) = 100 blocks: a catch-up of up to 100 steps through every block. */
const CALIBRATED = resolveCalibratedConfig({ window: 100 })

afterEach(() => vi.restoreAllMocks())

/** A feed over `store` recording what it publishes: one entry per listener call, the heights it carried. */
function recorded(store: ConstructorParameters<typeof EstimateFeed>[0], depth: number, calibrated = CALIBRATED) {
  const feed = new EstimateFeed(store, CONFIG, { mode: 'aptos', calibrated, depth })
  const calls: string[][] = []
  feed.subscribe((events: readonly PublishedEstimates[]) => calls.push(events.map((e) => String(e.height))))
  const sync = async () => {
    const info = await store.ledgerInfo()
    if (info !== null) await feed.syncTo(info)
  }
  return { feed, calls, sync }
}

describe('EstimateFeed publishing per block', () => {
  it('a catch-up over more blocks than `depth` publishes the newest `depth`, heights consecutive, in one call, and never builds the estimates of the older ones', async () => {
    const chain = new ChainBuilder()
    const store = storeOf(chain.blocks(1000, (i) => [{ sender: 1, gas_unit_price: 100 + (i % 50) }]))
    const { calls, sync } = recorded(store, 32)
    const estimates = vi.spyOn(Estimator.prototype, 'estimate')
    await sync()
    expect(calls).toEqual([Array.from({ length: 32 }, (_, i) => String(968 + i))])
    // One per published block, and the feed's own (the served estimate and `both`) at the end.
    expect(estimates.mock.calls.length).toBeLessThanOrEqual(32 + 2)
  })

  it('an appended block is one call of one height; a catch-up shorter than `depth` publishes each of its blocks', async () => {
    const chain = new ChainBuilder()
    const store = storeOf(chain.blocks(3))
    const { feed, calls, sync } = recorded(store, 8)
    await sync()
    await feed.append(chain.block())
    for (let i = 0; i < 5; i++) store.appendBlock(chain.block())
    await sync()
    await sync()
    expect(calls).toEqual([['0', '1', '2'], ['3'], ['4', '5', '6', '7', '8']])
  })

  it('a catch-up that fails half-way publishes nothing; the next one publishes its blocks too: no height twice, none skipped', async () => {
    const chain = new ChainBuilder()
    const inner = storeOf(chain.blocks(3))
    const store = faultyStore(inner)
    const { calls, sync } = recorded(store, 64)
    await sync()
    for (let i = 0; i < 10; i++) inner.appendBlock(chain.block())
    // Fails at height 8, after 3 to 7 were ingested.
    const read = store.blockByHeight.bind(store)
    store.blockByHeight = (h, w) => {
      if (String(h) === '8') throw new Error('disk hiccup')
      return read(h, w)
    }
    await expect(sync()).rejects.toThrow('disk hiccup')
    expect(calls).toEqual([['0', '1', '2']])
    store.blockByHeight = read
    await sync()
    expect(calls).toEqual([['0', '1', '2'], ['3', '4', '5', '6', '7', '8', '9', '10', '11', '12']])
  })

  it('a store whose reads take a round trip is read several heights ahead, answers arriving out of order, to the estimates of reading one by one', async () => {
    const blocks = new ChainBuilder().blocks(150, (i) => Array.from({ length: 1 + (i % 4) }, (_, k) => ({ sender: 1 + k, gas_unit_price: 100 + ((i * 7 + k * 13) % 60) })))
    const inner = storeOf(blocks)
    const slow = faultyStore(storeOf(blocks))
    const read = slow.blockByHeight.bind(slow)
    let inFlight = 0
    let most = 0
    // Later heights answer sooner: a catch-up that ingested as answers came would be out of order.
    slow.blockByHeight = async (h, w) => {
      inFlight++
      most = Math.max(most, inFlight)
      await new Promise((r) => setTimeout(r, 8 - (Number(h) % 8)))
      inFlight--
      return read(h, w)
    }
    const ahead = recorded(slow, 4)
    await ahead.sync()
    const oneByOne = recorded(inner, 4)
    await oneByOne.sync()
    expect(most).toBeGreaterThan(1)
    expect(ahead.feed.both).toEqual(oneByOne.feed.both)
    expect(ahead.calls).toEqual(oneByOne.calls)
  })

  it('after starting over above the oldest block, heights whose Aptos window reaches below the restart are not published', async () => {
    const chain = new ChainBuilder()
    const store = storeOf(chain.blocks(1000))
    // The restart reads the span, max(8 + 1, 16) = 16 blocks, from 984; heights 984 to 991 lack a whole Aptos window (9 blocks).
    const { calls, sync } = recorded(store, 300, resolveCalibratedConfig({ window: 16 }))
    await sync()
    expect(calls).toEqual([Array.from({ length: 8 }, (_, i) => String(992 + i))])
    // From the oldest block, nothing is missing below: every height is published.
    const fromStart = recorded(storeOf(new ChainBuilder().blocks(12)), 300)
    await fromStart.sync()
    expect(fromStart.calls).toEqual([Array.from({ length: 12 }, (_, i) => String(i))])
  })
})

describe('EstimateFeed catch-up from the store’s parsed blocks', () => {
  it('reads the blocks a store kept parsed instead of their JSON, the rest as JSON, to the same estimates as parsing every block', async () => {
    const blocks = new ChainBuilder().blocks(150, (i) => Array.from({ length: 1 + (i % 4) }, (_, k) => ({ sender: 1 + k, gas_unit_price: 100 + ((i * 7 + k * 13) % 60) })))
    const dir = mkdtempSync(join(tmpdir(), 'feed-parsed-'))
    const file = join(dir, 'chain.jsonl')
    writeFileSync(file, blocks.map((b) => `${JSON.stringify(b)}\n`).join(''))
    const loaded = await MemoryStore.fromJsonLines(file, { parsedBlocks: 60 })
    rmSync(dir, { recursive: true, force: true })
    const jsonReads = vi.spyOn(loaded, 'blockByHeight')
    const parsedReads = vi.spyOn(loaded, 'parsedBlockByHeight')
    const fromParsed = recorded(guardStore(loaded, 1000), 4)
    await fromParsed.sync()
    // Span 100 (the calibrated window): the newest 60 parsed, the 40 before them from their JSON.
    expect(parsedReads).toHaveBeenCalledTimes(100)
    expect(jsonReads).toHaveBeenCalledTimes(40)
    const fromJson = recorded(storeOf(blocks), 4)
    await fromJson.sync()
    expect(fromParsed.feed.json).toBe(fromJson.feed.json)
    expect(fromParsed.feed.both).toEqual(fromJson.feed.both)
    expect(fromParsed.calls).toEqual(fromJson.calls)
    const view = (f: EstimateFeed) => f.read(loaded.ledgerInfo() as LedgerInfo, (v) => JSON.stringify([v.aptos.estimate(), v.calibrated.estimate()], (_, x: unknown) => (typeof x === 'bigint' ? String(x) : x)))
    expect(await view(fromParsed.feed)).toBe(await view(fromJson.feed))
  })

  it('through the API’s store guard, a parsed block of another height is refused as garbage', () => {
    const store = storeOf(new ChainBuilder().blocks(3))
    const guarded = guardStore({ ...faultyStore(store), parsedBlockByHeight: () => parseBlockJson(store.blockByHeight(2, true)) }, 1000)
    expect(() => guarded.parsedBlockByHeight?.(3)).toThrow(/parsedBlockByHeight\(3\)/)
    expect(guarded.parsedBlockByHeight?.(2)).toEqual(parseBlockJson(store.blockByHeight(2, true)))
    expect(guardStore(store, 1000).parsedBlockByHeight?.(2)).toBeUndefined()
  })
})

describe('EstimateFeed catch-up by range reads (parsedBlocks)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'feed-ranges-'))
  let n = 0
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  /** Span 600 (the calibrated window): a catch-up from scratch reads three ranges (256 + 256 + 88). */
  const WIDE = resolveCalibratedConfig({ window: 600 })
  const varied = (count: number, chain = new ChainBuilder()) => chain.blocks(count, (i) => Array.from({ length: 1 + (i % 4) }, (_, k) => ({ sender: 1 + k, gas_unit_price: 100 + ((i * 7 + k * 13) % 60) })))
  function sqliteOf(blocks: readonly BlockJson[], path = join(dir, `ledger-${n++}.db`)): SqliteStore {
    const store = SqliteStore.open(path)
    const result = store.appendBlocks(blocks)
    if (result.refused !== undefined) throw result.refused
    return store
  }
  const view = (f: EstimateFeed, info: LedgerInfo) => f.read(info, (v) => JSON.stringify([v.aptos.estimate(), v.calibrated.estimate()], (_, x: unknown) => (typeof x === 'bigint' ? String(x) : x)))

  it('reads the span a range at a time, through the store guard, to the estimates, published heights and views of reading one by one; so do a later catch-up and one after a prune', async () => {
    const chain = new ChainBuilder()
    const blocks = varied(700, chain)
    const sqlite = sqliteOf(blocks)
    const memory = storeOf(blocks)
    const ranges = vi.spyOn(sqlite, 'parsedBlocks')
    const single = vi.spyOn(sqlite, 'blockByHeight')
    const byRange = recorded(guardStore(sqlite, 10_000), 4, WIDE)
    const oneByOne = recorded(memory, 4, WIDE)
    const compare = async () => {
      await byRange.sync()
      await oneByOne.sync()
      expect(byRange.feed.json).toBe(oneByOne.feed.json)
      expect(byRange.feed.both).toEqual(oneByOne.feed.both)
      expect(byRange.calls).toEqual(oneByOne.calls)
      expect(await view(byRange.feed, sqlite.ledgerInfo() as LedgerInfo)).toBe(await view(oneByOne.feed, memory.ledgerInfo() as LedgerInfo))
    }
    await compare()
    expect(ranges.mock.calls.map(([from, count]) => [Number(from), count])).toEqual([[100, 256], [356, 256], [612, 88]])
    expect(single).not.toHaveBeenCalled()
    const more = varied(300, chain)
    sqlite.appendBlocks(more)
    for (const b of more) memory.appendBlock(b)
    await compare()
    expect(ranges.mock.calls.slice(3).map(([from, count]) => [Number(from), count])).toEqual([[700, 256], [956, 44]])
    // Pruned below the span's start: a fresh feed starts at the oldest block held.
    const version = Number(blocks[550]?.first_version)
    sqlite.pruneBelow(version)
    memory.pruneBelow(version)
    const afterPrune = [recorded(guardStore(sqlite, 10_000), 4, resolveCalibratedConfig({ window: 800 })), recorded(memory, 4, resolveCalibratedConfig({ window: 800 }))] as const
    for (const r of afterPrune) await r.sync()
    expect(afterPrune[0].feed.both).toEqual(afterPrune[1].feed.both)
    expect(afterPrune[0].calls).toEqual(afterPrune[1].calls)
    // Span 800 from height 999 would start at 200; the oldest block held is 550.
    expect(ranges.mock.calls.slice(5).map(([from, count]) => [Number(from), count])).toEqual([[550, 256], [806, 194]])
    sqlite.close()
  })

  it('a height the range answers null is passed over and a block it answers as JSON is parsed and reported, as when read one by one', async () => {
    const blocks = varied(300)
    const path = join(dir, `ledger-${n++}.db`)
    sqliteOf(blocks, path).close()
    const raw = new Database(path)
    const key = (h: number | string) => BigInt(h) - (1n << 63n)
    raw.prepare('DELETE FROM blocks WHERE block_height = ?').run(key(150))
    const user = blocks[200]?.transactions.find((t) => t.type === 'user_transaction')
    raw.prepare('UPDATE transactions SET json = ? WHERE version = ?').run(JSON.stringify({ ...user, gas_used: 'lots' }), key(user?.version ?? 0))
    raw.close()
    const sqlite = SqliteStore.open(path, { readonly: true })
    const skips: string[][] = [[], []]
    const feeds = [sqlite, faultyStore(sqlite)].map((store, i) => new EstimateFeed(store, CONFIG, { mode: 'calibrated', calibrated: WIDE }, (h) => skips[i]?.push(String(h))))
    const ranges = vi.spyOn(sqlite, 'parsedBlocks')
    for (const feed of feeds) await feed.syncTo(sqlite.ledgerInfo() as LedgerInfo)
    expect(ranges).toHaveBeenCalledTimes(2)
    expect(skips).toEqual([['200'], ['200']])
    expect(feeds[0]?.skipped).toBe(1)
    expect(feeds[0]?.both).toEqual(feeds[1]?.both)
    expect(feeds[0]?.json).toBe(feeds[1]?.json)
    sqlite.close()
  })

  it('a catch-up whose second range read fails publishes nothing; the next one resumes after the last block ingested: no height twice, none skipped', async () => {
    const chain = new ChainBuilder()
    const blocks = varied(400, chain)
    const sqlite = sqliteOf(blocks)
    const read = sqlite.parsedBlocks.bind(sqlite)
    let calls = 0
    const spy = vi.spyOn(sqlite, 'parsedBlocks').mockImplementation((from, count, max) => {
      if (++calls === 2) throw new Error('disk hiccup')
      return read(from, count, max)
    })
    const byRange = recorded(sqlite, 300, WIDE)
    await expect(byRange.sync()).rejects.toThrow('disk hiccup')
    expect(byRange.calls).toEqual([])
    await byRange.sync()
    expect(spy.mock.calls.map(([from, count]) => [Number(from), count])).toEqual([[0, 256], [256, 144], [256, 144]])
    const oneByOne = recorded(storeOf(blocks), 300, WIDE)
    await oneByOne.sync()
    expect(byRange.calls).toEqual(oneByOne.calls)
    expect(byRange.feed.both).toEqual(oneByOne.feed.both)
    sqlite.close()
  })

  it('through the API’s store guard, a range answer of another height, of no heights or of more than asked is refused as garbage', () => {
    const store = storeOf(new ChainBuilder().blocks(4))
    const parsed = (h: number) => parseBlockJson(store.blockByHeight(h, true))
    const answering = (answer: RangeBlock[]) => guardStore({ ...faultyStore(store), parsedBlocks: () => answer }, 1000)
    expect(() => answering([parsed(1), parsed(3)]).parsedBlocks?.(1, 3, 100)).toThrow(/parsedBlocks\(1, 3\)/)
    expect(() => answering([]).parsedBlocks?.(1, 3, 100)).toThrow(/parsedBlocks\(1, 3\) with 0 heights/)
    expect(() => answering([parsed(1), parsed(2)]).parsedBlocks?.(1, 1, 100)).toThrow(/2 heights/)
    expect(() => answering([null, { ...(store.blockByHeight(3, true) as BlockJson), block_height: '9' }]).parsedBlocks?.(2, 2, 100)).toThrow(/parsedBlocks\(2, 2\) at height 3 with the block at height "9"/)
    const good = [null, parsed(3), store.blockByHeight(4, true)]
    expect(answering(good).parsedBlocks?.(2, 3, 100)).toEqual(good)
    expect(guardStore(store, 1000).parsedBlocks).toBeUndefined()
  })

  it('through the API’s store guard, a range read that does not settle within the store deadline is a store_timeout, and the catch-up fails with it', async () => {
    const store = storeOf(new ChainBuilder().blocks(4))
    const hanging = guardStore({ ...faultyStore(store), parsedBlocks: () => new Promise<RangeBlock[]>(() => {}) }, 20)
    await expect(hanging.parsedBlocks?.(0, 4, 100)).rejects.toMatchObject({ code: 'store_timeout' })
    await expect(recorded(hanging, 1).sync()).rejects.toMatchObject({ code: 'store_timeout' })
  })
})
