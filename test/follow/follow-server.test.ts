import { afterEach, describe, expect, it } from 'vitest'
import { gasEstimateToJson } from '../../src/core/index.js'
import type { EstimateUpdate, FollowEvent } from '../../src/follow/events.js'
import { followNode, type Follower } from '../../src/follow/follow-node.js'
import { delay, estimatesByHeight, sampleBlocks, until } from './helpers/chain.js'
import { expectServerEstimate, startServer, type TestServer } from './helpers/server.js'

/**
 * The server starts with blocks 650–790 and grows to 880 while followed: across the epoch
 * change at 801 and the congestion of 793–828, where the estimate moves (802, 806, 841, 856, 872).
 */
const INITIAL = sampleBlocks(650, 790)
const GROWTH = sampleBlocks(791, 880)
const REFERENCE = estimatesByHeight([...INITIAL, ...GROWTH])

const open: { f?: Follower; s?: TestServer }[] = []
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.f?.stop().catch(() => {})
    await o.s?.close()
  }
})

describe('following this project’s server on 127.0.0.1', () => {
  it.each(['X-NODE-', 'X-APTOS-'])('with %s ledger headers: the estimate equals the server’s /v1/estimate_gas_price at the same height while the chain grows', async (prefix) => {
    const s = await startServer(INITIAL, prefix)
    const updates: EstimateUpdate[] = []
    const events: FollowEvent[] = []
    const f = followNode({ url: s.url, intervalMs: 20, onEstimate: (u) => updates.push(u), onEvent: (e) => events.push(e) })
    open.push({ f, s })
    await f.ready
    expect(f.asOf).toEqual({ block_height: 790, epoch: 2 })
    await expectServerEstimate(s, f)

    let compared = 1
    for (const block of GROWTH) {
      await s.server.appendBlock(block)
      await delay(8)
      const h = Number(block.block_height)
      if (h % 15 === 0 || h === 880) {
        await until(() => f.asOf?.block_height === h, `the follower at block ${h}`)
        await expectServerEstimate(s, f)
        compared++
      }
    }
    expect(compared).toBe(8)
    // One update per block from the end of the backfill on, each the engine's estimate at that height.
    expect(updates.map((u) => u.block_height)).toEqual([...Array(91).keys()].map((i) => 790 + i))
    for (const u of updates) expect(gasEstimateToJson(u.estimate), `block ${u.block_height}`).toBe(REFERENCE.get(String(u.block_height)))
    expect(new Set(updates.map((u) => gasEstimateToJson(u.estimate))).size).toBeGreaterThan(3)
    expect(events.filter((e) => e.type === 'epoch')).toEqual([{ type: 'epoch', block_height: 801, from_epoch: 2, to_epoch: 3 }])
    expect(events.filter((e) => e.type === 'skip' || e.type === 'retry')).toEqual([])
  })

  it('a block the server pruned after its ledger info was read (410 block_pruned) is skipped up to its oldest block', async () => {
    const s = await startServer(INITIAL)
    const oldest = INITIAL[700 - 650]
    let pruned = false
    const events: FollowEvent[] = []
    const f = followNode({
      url: s.url,
      intervalMs: 20,
      onEvent: (e) => events.push(e),
      fetch: async (input, init) => {
        const res = await fetch(input, init)
        if (!pruned) {
          pruned = true
          s.store.pruneBelow(Number(oldest?.first_version))
        }
        return res
      },
    })
    open.push({ f, s })
    await f.ready
    expect(events.filter((e) => e.type === 'skip')).toEqual([{ type: 'skip', from_height: 670, to_height: 699, reason: 'pruned', message: 'Block(670) has been pruned' }])
    expect(f.history().map((b) => Number(b.block_height))).toEqual([...Array(91).keys()].map((i) => 700 + i))
    expect(gasEstimateToJson(f.estimate())).toBe(estimatesByHeight(sampleBlocks(700, 790)).get('790'))
  })
})
