import { afterEach, describe, expect, it } from 'vitest'
import { gasEstimateToJson, stringifyExact } from '../../src/core/index.js'
import type { EstimateUpdate, FollowEvent } from '../../src/follow/events.js'
import { followNode, type Follower } from '../../src/follow/follow-node.js'
import type { FollowMode } from '../../src/follow/follow-options.js'
import { calibratedByHeight, estimatesByHeight, sampleBlocks } from '../helpers/sample-chain.js'
import { until } from '../helpers/wait.js'
import { expectServerEstimate, startServer, type TestServer } from '../helpers/follow-server.js'

/**
 * The server starts with blocks 1450–1590 and grows to 1680 while followed: across the epoch
 * change at 1601 (which clears the history) and the end of the congestion of 1527–1626, where
 * the estimate moves (1592, 1601, 1602, 1604, 1606, 1612, 1615, 1616, 1628, 1631, 1636, 1646,
 * 1651).
 */
const INITIAL = sampleBlocks(1450, 1590)
const GROWTH = sampleBlocks(1591, 1680)
const REFERENCE = estimatesByHeight([...INITIAL, ...GROWTH])

const open: { f?: Follower<FollowMode>; s?: TestServer }[] = []
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.f?.stop().catch(() => {})
    await o.s?.close()
  }
})

// The window now holds a congested stretch (about 14 txns a block instead of 0–2), so serving
// and following it can pass the default 5 s on a loaded machine.
describe('following this project’s server on 127.0.0.1', () => {
  it.each(['X-NODE-', 'X-APTOS-'])('with %s ledger headers: the estimate equals the server’s /v1/estimate_gas_price at the same height while the chain grows', async (prefix) => {
    const s = await startServer(INITIAL, prefix)
    const updates: EstimateUpdate[] = []
    const events: FollowEvent[] = []
    const f = followNode({ url: s.url, intervalMs: 20, onEstimate: (u) => updates.push(u), onEvent: (e) => events.push(e) })
    open.push({ f, s })
    await f.ready
    expect(f.asOf).toEqual({ block_height: 1590, epoch: 4 })
    await expectServerEstimate(s, f)

    let compared = 1
    for (const block of GROWTH) {
      await s.server.appendBlock(block)
      const h = Number(block.block_height)
      // Three blocks appear between waits, so the follower catches up by more than one at a time.
      if (h % 3 === 0) await until(() => f.asOf?.block_height === h, `the follower at block ${h}`)
      if (h % 15 === 0 || h === 1680) {
        await expectServerEstimate(s, f)
        compared++
      }
    }
    expect(compared).toBe(7)
    // One update per block from the end of the backfill on, each the engine's estimate at that height.
    expect(updates.map((u) => u.block_height)).toEqual([...Array(91).keys()].map((i) => 1590 + i))
    for (const u of updates) expect(gasEstimateToJson(u.estimate), `block ${u.block_height}`).toBe(REFERENCE.get(String(u.block_height)))
    expect(new Set(updates.map((u) => gasEstimateToJson(u.estimate))).size).toBeGreaterThan(3)
    expect(events.filter((e) => e.type === 'epoch')).toEqual([{ type: 'epoch', block_height: 1601, from_epoch: 4, to_epoch: 5, dropped: true }])
    expect(events.filter((e) => e.type === 'skip' || e.type === 'retry')).toEqual([])
  })

  it('a block the server pruned after its ledger info was read (410 block_pruned) is skipped up to its oldest block', async () => {
    const s = await startServer(INITIAL)
    const oldest = INITIAL[1500 - 1450]
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
    expect(events.filter((e) => e.type === 'skip')).toEqual([{ type: 'skip', from_height: 1470, to_height: 1499, reason: 'pruned', message: 'Block(1470) has been pruned' }])
    expect(f.history().map((b) => Number(b.block_height))).toEqual([...Array(91).keys()].map((i) => 1500 + i))
    expect(gasEstimateToJson(f.estimate())).toBe(estimatesByHeight(sampleBlocks(1500, 1590)).get('1590'))
  })
})

/** The server's `/v1/gas/estimate`, `/v1/gas/explain` and `/v1/estimate_gas_price`, read in that order. */
async function serverCalibrated(s: TestServer) {
  const estimate = (await (await fetch(`${s.url}/gas/estimate`)).json()) as { as_of: { block_height: number }; deprioritized: { price: number }; regular: { price: number }; prioritized: { price: number } }
  const explain = await (await fetch(`${s.url}/gas/explain`)).text()
  const served = await (await fetch(`${s.url}/estimate_gas_price`)).text()
  return { estimate, explain, served }
}

describe('following this project’s server in calibrated mode', () => {
  it('when both ingested the same blocks (the server’s ledger starts at 1450, within the default window, so both read 1450 on), the follower’s estimate and explain equal the server’s /v1/gas/estimate and /v1/gas/explain at the same height while the chain grows', async () => {
    const s = await startServer(INITIAL, 'X-NODE-', {}, { estimatorMode: 'calibrated' })
    const updates: EstimateUpdate[] = []
    const events: FollowEvent[] = []
    const f = followNode({ url: s.url, mode: 'calibrated', intervalMs: 20, onEstimate: (u) => updates.push(u), onEvent: (e) => events.push(e) })
    open.push({ f, s })
    await f.ready
    expect(events[0]).toMatchObject({ type: 'backfill', from_height: 1450, to_height: 1590 })
    const reference = calibratedByHeight([...INITIAL, ...GROWTH])

    const compare = async (h: number) => {
      const server = await serverCalibrated(s)
      expect(server.estimate.as_of.block_height).toBe(h)
      expect(f.asOf?.block_height).toBe(h)
      const mine = f.estimate()
      expect([server.estimate.deprioritized.price, server.estimate.regular.price, server.estimate.prioritized.price], `block ${h}`).toEqual([mine.deprioritized_gas_estimate, mine.gas_estimate, mine.prioritized_gas_estimate])
      expect(server.served).toBe(gasEstimateToJson(mine))
      expect(server.explain).toContain(`,"calibrated":${stringifyExact(f.explain())}}`)
    }
    await compare(1590)
    let compared = 1
    for (const block of GROWTH) {
      await s.server.appendBlock(block)
      const h = Number(block.block_height)
      // Three blocks appear between waits, so the follower catches up by more than one at a time.
      if (h % 3 === 0) await until(() => f.asOf?.block_height === h, `the follower at block ${h}`)
      if (h % 15 === 0 || h === 1680) {
        await compare(h)
        compared++
      }
    }
    expect(compared).toBe(7)
    expect(updates.map((u) => u.block_height)).toEqual([...Array(91).keys()].map((i) => 1590 + i))
    for (const u of updates) expect(gasEstimateToJson(u.estimate), `block ${u.block_height}`).toBe(reference.get(String(u.block_height)))
    // The calibrated estimate moves through the end of the congestion of 1527–1626, and it is not the Aptos one.
    expect(new Set(updates.map((u) => gasEstimateToJson(u.estimate))).size).toBeGreaterThan(3)
    const aptos = estimatesByHeight([...INITIAL, ...GROWTH])
    expect(updates.some((u) => gasEstimateToJson(u.estimate) !== aptos.get(String(u.block_height)))).toBe(true)
    // The calibrated estimator keeps its blocks across the epoch change.
    expect(events.filter((e) => e.type === 'epoch')).toEqual([{ type: 'epoch', block_height: 1601, from_epoch: 4, to_epoch: 5, dropped: false }])
    expect(f.history()).toHaveLength(231)
  })

  it('a follower that ingested fewer blocks (bounded backfill: 1541 on, the server 1450 on) differs from the server in history and coverage: equality needs the same blocks', async () => {
    const s = await startServer(INITIAL)
    const f = followNode({ url: s.url, mode: 'calibrated', backfillBlocks: 50, intervalMs: 20 })
    open.push({ f, s })
    await f.ready
    expect(f.history().map((b) => Number(b.block_height))).toEqual([...Array(50).keys()].map((i) => 1541 + i))
    const server = (await (await fetch(`${s.url}/gas/explain`)).json()) as { calibrated: { blocks_ingested: number; tiers: { regular: { coverage: { evaluated: number } } } } }
    const mine = f.explain()
    expect(server.calibrated.blocks_ingested).toBe(141)
    expect(mine.blocks_ingested).toBe(50)
    expect(mine.tiers.regular.coverage.evaluated).toBe(47)
    expect(server.calibrated.tiers.regular.coverage.evaluated).toBe(138)
    expect(gasEstimateToJson(f.estimate())).toBe(calibratedByHeight(sampleBlocks(1541, 1590)).get('1590'))
  })
})
