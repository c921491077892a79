import { afterAll, describe, expect, it } from 'vitest'
import { gasEstimateToJson } from '../../src/core/index.js'
import type { EstimateUpdate, FollowEvent, RetryEvent } from '../../src/follow/events.js'
import { followNode } from '../../src/follow/follow-node.js'
import { estimatesByHeight, sampleBlocks } from '../helpers/sample-chain.js'
import { settled, until } from '../helpers/wait.js'
import { startFaultProxy, type Fault } from '../helpers/fault-proxy.js'
import { expectServerEstimate, startServer } from '../helpers/follow-server.js'

/** Windows of 5/10/30 blocks on both sides keep the backfill short while every request risks a fault. */
const CONFIG = { low_block_history: 5, market_block_history: 10, aggressive_block_history: 30 }
const INITIAL = sampleBlocks(700, 790)
const GROWTH = sampleBlocks(791, 850)
const REFERENCE = estimatesByHeight([...INITIAL, ...GROWTH], CONFIG)

/** A fixed cycle of faults, one request in two failing, plus one 1 s Retry-After and one stall. */
const CYCLE: Fault[] = ['pass', 'drop', 'pass', '503', 'delay', 'pass', '429', 'truncate', 'pass', '503', 'pass', 'drop']
const plan = (n: number): Fault => (n === 30 ? '429-wait' : n === 50 ? 'stall' : (CYCLE[n % CYCLE.length] as Fault))

const cleanup: (() => Promise<unknown>)[] = []
afterAll(async () => {
  for (const c of cleanup.reverse()) await c()
})

describe('following through a fault-injecting proxy', () => {
  it('drops, truncated bodies, delays, stalls, 429 and 503 cost only retries: no block is skipped, and the estimates equal the server’s', async () => {
    const s = await startServer(INITIAL, 'X-NODE-', CONFIG)
    cleanup.push(() => s.close())
    const proxy = await startFaultProxy(s.origin, plan)
    cleanup.push(() => proxy.close())
    const updates: EstimateUpdate[] = []
    const events: FollowEvent[] = []
    /** For each event, how many requests the proxy had seen when it was emitted (orders the two logs). */
    const proxySeen: number[] = []
    // The follower's requests as it makes them: one is in flight from the call until its body has
    // been read or it failed. (The proxy cannot tell: it may see a retry before the close of the
    // connection the follower gave up, when the machine is busy.)
    const inFlight = new Map<string, number>()
    const overlaps: string[] = []
    const f = followNode({
      url: `${proxy.origin}/v1`,
      fetch: async (input, init) => {
        const path = new URL(String(input)).pathname + new URL(String(input)).search
        if ((inFlight.get(path) ?? 0) > 0) overlaps.push(path)
        inFlight.set(path, (inFlight.get(path) ?? 0) + 1)
        try {
          const res = await fetch(input, init)
          const body = await res.text()
          return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
        } finally {
          inFlight.set(path, (inFlight.get(path) ?? 1) - 1)
        }
      },
      config: CONFIG,
      intervalMs: 20,
      // Far above what a loopback answer takes on a loaded machine, so the stalled request is
      // what times out, not a slow one; the stall costs this once.
      timeoutMs: 2_000,
      retry: { retries: 10, baseDelayMs: 10, maxDelayMs: 50 },
      onEstimate: (u) => updates.push(u),
      onEvent: (e) => {
        events.push(e)
        proxySeen.push(proxy.log.length)
      },
    })
    cleanup.push(() => f.stop())
    await settled(f.ready, 'the backfill through the proxy')
    expect(f.asOf?.block_height).toBe(790)
    // The chain grows by one block per request the follower makes, so it follows a moving tip.
    for (const block of GROWTH) {
      await s.server.appendBlock(block)
      const seen = proxy.log.length
      await until(() => proxy.log.length > seen, `a request after block ${block.block_height} was appended`)
    }
    await until(() => f.asOf?.block_height === 850, 'the follower at block 850')
    await expectServerEstimate(s, f)
    await f.stop()

    const injected = new Set(proxy.log.map((l) => l.fault))
    expect([...injected].sort()).toEqual(['429', '429-wait', '503', 'delay', 'drop', 'pass', 'stall', 'truncate'])
    const reasons = new Set(events.filter((e): e is RetryEvent => e.type === 'retry').map((e) => e.reason.replace(/\(.*\)/, '(…)')))
    expect([...reasons].sort()).toEqual(['HTTP 429', 'HTTP 503', 'network error (…)', 'timeout after 2000 ms'])
    // The stalled request is one that timed out (the client's timer, not the proxy, ended it).
    const stalled = proxy.log.find((l) => l.fault === 'stall')?.path as string
    expect(events.some((e) => e.type === 'retry' && e.reason === 'timeout after 2000 ms' && e.url.endsWith(stalled))).toBe(true)
    expect(events.filter((e) => e.type === 'skip')).toEqual([])
    expect(updates.map((u) => u.block_height)).toEqual([...Array(61).keys()].map((i) => 790 + i))
    for (const u of updates) expect(gasEstimateToJson(u.estimate), `block ${u.block_height}`).toBe(REFERENCE.get(String(u.block_height)))
    // Never two requests for one path at once: each retry waited for the failure before it.
    expect(overlaps).toEqual([])

    // Retry-After: 1 was honoured: after the 429 that asked for it, the follower announced a wait of
    // at least 1000 ms, and only then asked for the same path again (NodeClient's tests show that
    // the announced wait is the one slept).
    const waited = proxy.log.findIndex((l) => l.fault === '429-wait')
    const path = proxy.log[waited]?.path
    const retry = events.findIndex((e) => e.type === 'retry' && e.retry_after_ms === 1000)
    expect(events[retry]).toMatchObject({ type: 'retry', status: 429, retry_after_ms: 1000, url: expect.stringContaining(path as string) })
    expect((events[retry] as RetryEvent).delay_ms).toBeGreaterThanOrEqual(1000)
    expect(proxySeen[retry]).toBeGreaterThan(waited)
    const next = proxy.log.findIndex((l, i) => i > waited && l.path === path)
    expect(next).toBeGreaterThanOrEqual(proxySeen[retry] as number)
  })
})
