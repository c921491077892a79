import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { guardStore } from '../../src/api/plumbing/store-guard.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import type { LedgerInfo } from '../../src/ledger/store/store.js'
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
