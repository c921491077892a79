import { describe, expect, it } from 'vitest'
import { gasEstimateToJson, InvalidConfigError } from '../../src/core/index.js'
import { NodeResponseError, NodeUnavailableError } from '../../src/follow/errors.js'
import { formatFollowEvent, type EstimateUpdate, type FollowEvent } from '../../src/follow/events.js'
import { followNode } from '../../src/follow/follow-node.js'
import type { FollowMode, FollowOptions } from '../../src/follow/follow-options.js'
import { calibratedByHeight, estimatesByHeight, sampleBlocks } from '../helpers/sample-chain.js'
import { until, watchTimers } from '../helpers/wait.js'
import { answer, FakeNode, type FakeNodeOptions } from '../helpers/fake-node.js'

const SMALL = { low_block_history: 3, market_block_history: 5, aggressive_block_history: 10 }
/** Heights 470–700 of the sample chain: the estimate moves during 793–828 only, so 780–860 for that. */
const CHAIN = sampleBlocks(470, 700)
const REFERENCE = estimatesByHeight(CHAIN, SMALL)

function follow<M extends FollowMode = 'aptos'>(node: FakeNode, options: Partial<FollowOptions<M>> = {}) {
  const events: FollowEvent[] = []
  const updates: EstimateUpdate[] = []
  const f = followNode<M>({
    url: 'http://node.test/v1',
    fetch: node.fetch,
    config: SMALL,
    intervalMs: 5,
    retry: { baseDelayMs: 1, maxDelayMs: 4 },
    onEvent: (e) => events.push(e),
    onEstimate: (u) => updates.push(u),
    ...options,
  })
  const heights = () => f.history().map((b) => Number(b.block_height))
  const skips = () => events.filter((e) => e.type === 'skip')
  return { f, events, updates, heights, skips }
}

const blockPaths = (node: FakeNode) => node.paths.filter((p) => p.includes('/by_height/')).map((p) => Number(/by_height\/(\d+)/.exec(p)?.[1]))
/** Ledger-info requests the node has seen: the follower's polls. */
const ledgerPolls = (node: FakeNode) => node.paths.filter((p) => p === '/v1/').length
const fake = (o: Partial<FakeNodeOptions> = {}) => new FakeNode({ blocks: CHAIN, height: 495, ...o })

describe('followNode: backfill and polling', () => {
  it('reads the ledger info, backfills the newest aggressive_block_history + 1 blocks, then publishes one estimate per new block', async () => {
    const node = fake()
    const t = follow(node)
    await t.f.ready
    expect(node.paths[0]).toBe('/v1/')
    expect(blockPaths(node)).toEqual([485, 486, 487, 488, 489, 490, 491, 492, 493, 494, 495])
    expect(t.f.asOf).toEqual({ block_height: 495, epoch: 2 })
    expect(t.updates.map((u) => u.block_height)).toEqual([495])
    expect(gasEstimateToJson(t.f.estimate())).toBe(REFERENCE.get('495'))
    expect(t.events[0]).toEqual({ type: 'backfill', url: 'http://node.test/v1', from_height: 485, to_height: 495 })
    expect(t.events[1]).toMatchObject({ type: 'ready', block_height: 495, blocks_ingested: 11, requests: 12 })

    node.height = 503
    await until(() => t.f.asOf?.block_height === 503, 'block 503')
    expect(t.updates.map((u) => u.block_height)).toEqual([495, 496, 497, 498, 499, 500, 501, 502, 503])
    for (const u of t.updates) expect(gasEstimateToJson(u.estimate)).toBe(REFERENCE.get(String(u.block_height)))
    expect(t.f.explain().as_of).toEqual({ block_height: 503, epoch: 2 })
    await t.f.stop()
    expect(node.duplicates).toBe(0)
  })
  it('on a chain shorter than the span, backfills from its oldest block', async () => {
    const node = fake({ height: 474 })
    const t = follow(node)
    await t.f.ready
    expect(blockPaths(node)).toEqual([470, 471, 472, 473, 474])
    await t.f.stop()
  })
  it('waits for a load-balanced node that reports a lower height, never going back', async () => {
    const node = fake()
    const t = follow(node)
    await t.f.ready
    node.height = 490
    // Polls are sequential: once a second poll at the lower height has begun, the first one's
    // answer has been handled.
    const polls = ledgerPolls(node)
    await until(() => ledgerPolls(node) >= polls + 2, 'two polls of the node at height 490')
    expect(t.f.asOf?.block_height).toBe(495)
    node.height = 497
    await until(() => t.f.asOf?.block_height === 497, 'block 497')
    expect(t.heights()).toEqual([...Array(11).keys()].map((i) => 487 + i))
    await t.f.stop()
  })
})

describe('followNode: pruned blocks, gaps, falling behind, epochs', () => {
  it.each([
    ['X-APTOS-', 1],
    ['x-node-', 1],
    [null, 2],
  ] as const)('a 410 for a pruned block skips forward to the oldest height and says so (headers %s: %i ledger-info reads)', async (prefix, infoReads) => {
    let served = false
    const node: FakeNode = fake({
      prefix,
      fault: (path) => {
        // The node prunes below 490 right after the follower read its ledger info.
        if (path === '/v1/' && !served) served = true
        else if (served) node.oldest = 490
        return undefined
      },
    })
    const t = follow(node, { headerPrefixes: prefix === 'x-node-' ? ['X-NODE-'] : undefined })
    await t.f.ready
    expect(t.skips()).toEqual([{ type: 'skip', from_height: 485, to_height: 489, reason: 'pruned', message: 'Block(485) has been pruned' }])
    expect(t.heights()).toEqual([490, 491, 492, 493, 494, 495])
    expect(node.paths.filter((p) => p === '/v1/')).toHaveLength(infoReads)
    await t.f.stop()
  })
  it('a 404 at or below the node’s height is retried, then skipped as a gap; later blocks still come in order', async () => {
    const node = fake({ fault: (path) => (path.includes('/by_height/490?') ? answer(404, { message: 'Block not found by Block height(490)', error_code: 'block_not_found' }) : undefined) })
    const t = follow(node)
    await t.f.ready
    expect(blockPaths(node).filter((h) => h === 490)).toHaveLength(4)
    expect(t.events.filter((e) => e.type === 'retry' && e.status === 404)).toHaveLength(3)
    expect(t.skips()).toEqual([{ type: 'skip', from_height: 490, to_height: 490, reason: 'gap', message: 'Block not found by Block height(490)' }])
    expect(t.heights()).toEqual([485, 486, 487, 488, 489, 491, 492, 493, 494, 495])
    await t.f.stop()
  })
  it('when the node’s oldest block moves past the next height, skips to it', async () => {
    const node = fake()
    const t = follow(node)
    await t.f.ready
    node.oldest = 505
    node.height = 508
    await until(() => t.f.asOf?.block_height === 508, 'block 508')
    expect(t.skips()).toEqual([{ type: 'skip', from_height: 496, to_height: 504, reason: 'pruned', message: "the node's oldest block is now 505" }])
    expect(blockPaths(node).filter((h) => h > 495)).toEqual([505, 506, 507, 508])
    await t.f.stop()
  })
  it('far behind, reads only the newest span and publishes once, with the estimate of the node at that height', async () => {
    const node = fake()
    const t = follow(node)
    await t.f.ready
    node.height = 650
    await until(() => t.f.asOf?.block_height === 650, 'block 650')
    expect(t.skips()).toEqual([{ type: 'skip', from_height: 496, to_height: 639, reason: 'behind', message: '155 blocks behind; the newest 11 decide the estimate' }])
    expect(blockPaths(node).filter((h) => h > 495)).toEqual([...Array(11).keys()].map((i) => 640 + i))
    expect(t.updates.map((u) => u.block_height)).toEqual([495, 650])
    expect(gasEstimateToJson(t.f.estimate())).toBe(REFERENCE.get('650'))
    await t.f.stop()
  })
  it('an epoch change is reported; the engine then counts only the new epoch’s blocks', async () => {
    const blocks = sampleBlocks(380, 420)
    const node = new FakeNode({ blocks, height: 405 })
    const t = follow(node)
    await t.f.ready
    expect(t.events.filter((e) => e.type === 'epoch')).toEqual([{ type: 'epoch', block_height: 401, from_epoch: 1, to_epoch: 2, dropped: true }])
    const explain = t.f.explain()
    expect(explain.as_of).toEqual({ block_height: 405, epoch: 2 })
    // Blocks 401–404 count (405 is the skipped newest one).
    expect(explain.tiers?.prioritized.window_blocks).toBe(4)
    expect(gasEstimateToJson(t.f.estimate())).toBe(estimatesByHeight(blocks, SMALL).get('405'))
    await t.f.stop()
  })
  it('a block the engine cannot read is skipped and named; the next ones are ingested', async () => {
    const bad = { ...CHAIN[490 - 470], transactions: [{ type: 'mystery_transaction', version: '1' }] }
    const node = fake({ fault: (path) => (path.includes('/by_height/490?') ? answer(200, bad) : undefined) })
    const t = follow(node)
    await t.f.ready
    expect(t.skips()).toMatchObject([{ from_height: 490, to_height: 490, reason: 'invalid_block', message: 'block 490: transactions[0].type: unknown transaction type "mystery_transaction"' }])
    expect(t.heights()).not.toContain(490)
    expect(t.f.asOf?.block_height).toBe(495)
    await t.f.stop()
  })
})

describe('followNode: in-flight requests', () => {
  it('never has two requests for the same URL in flight, with blocks fetched 8 at a time while the chain grows', async () => {
    const node = fake({ latencyMs: 3 })
    const t = follow(node, { concurrency: 8, backfillBlocks: 60 })
    await t.f.ready
    // The chain grows by 5 at each poll, while the blocks of the last growth are in flight.
    for (let h = 500; h <= 560; h += 5) {
      node.height = h
      const polls = ledgerPolls(node)
      await until(() => ledgerPolls(node) > polls, `a poll of the node at height ${h}`)
    }
    await until(() => t.f.asOf?.block_height === 560, 'block 560')
    await t.f.stop()
    expect(node.duplicates).toBe(0)
    const heights = blockPaths(node)
    expect(new Set(heights).size).toBe(heights.length)
    expect(t.heights()).toEqual([...Array(11).keys()].map((i) => 550 + i))
  })
})

describe('followNode: stopping and failing', () => {
  it('an abort during the backfill resolves `done`, rejects `ready`, and leaves no timer', async () => {
    const timers = watchTimers(1000)
    const node = fake({ latencyMs: 1000 })
    const controller = new AbortController()
    const t = follow(node, { signal: controller.signal })
    // The ledger-info request: its 10 s timeout and the fake node's 1 s latency.
    await until(() => timers.pending() === 2, 'the ledger-info request and its timeout')
    expect(node.paths).toEqual(['/v1/'])
    controller.abort()
    await expect(t.f.done).resolves.toBeUndefined()
    await expect(t.f.ready).rejects.toThrow(/stopped before its backfill/)
    expect(timers.pending()).toBe(0)
    timers.restore()
  })
  it('an abort while waiting for the next poll ends at once, not after the interval', async () => {
    const timers = watchTimers(60_000)
    const node = fake()
    const t = follow(node, { intervalMs: 60_000 })
    await t.f.ready
    await until(() => timers.pending() === 1, 'the one-minute wait for the next poll')
    const requests = node.paths.length
    // stop() settles although the one-minute wait has not run out: the wait was cleared, not
    // waited for, and no poll followed it.
    await t.f.stop()
    expect(timers.pending()).toBe(0)
    expect(node.paths).toHaveLength(requests)
    timers.restore()
  })
  it('an already aborted signal: done resolves without a request', async () => {
    const node = fake()
    const t = follow(node, { signal: AbortSignal.abort() })
    await t.f.done
    expect(node.paths).toEqual([])
  })
  it('a node that stays down: `done` rejects with NodeUnavailableError after retries + 1 attempts', async () => {
    const node = fake({ fault: () => answer(503, { message: 'overloaded' }) })
    const t = follow(node, { retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 2 } })
    const error = await t.f.done.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NodeUnavailableError)
    expect((error as NodeUnavailableError).attempts).toBe(4)
    await expect(t.f.ready).rejects.toBe(error)
    expect(t.events.filter((e) => e.type === 'retry')).toHaveLength(3)
  })
  it('a URL that is not the API root (404 for the ledger info) rejects `done` with NodeResponseError', async () => {
    const node = fake({ fault: (path) => (path === '/v1/' ? answer(404, { message: 'Route GET:/v1/ not found' }) : undefined) })
    const t = follow(node)
    await expect(t.f.done).rejects.toThrow(NodeResponseError)
    await expect(t.f.done).rejects.toThrow(/no ledger info here; the URL should be the API root, \/v1 included/)
  })
  it('a ledger info without u64 strings is refused, naming the field', async () => {
    const node = fake({ fault: (path) => (path === '/v1/' ? answer(200, { block_height: 495, oldest_block_height: '1', epoch: '2' }) : undefined) })
    await expect(follow(node).f.done).rejects.toThrow(/ledger info block_height must be a u64 decimal string, got 495/)
  })
  it.each([
    [{ url: 'ftp://node.test/v1' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ concurrency: 0 }, 'concurrency'],
    [{ intervalMs: -1 }, 'intervalMs'],
    [{ backfillBlocks: 0 }, 'backfillBlocks'],
    [{ retry: { retries: 1.5 } }, 'retry.retries'],
    [{ config: { low_block_history: 0 } }, 'low_block_history'],
    [{ mode: 'geth' }, 'mode'],
    [{ mode: 'calibrated', calibrated: { window: 0 } }, 'window'],
    [{ calibrated: { prioritized: { k: 0 } } }, 'prioritized.k'],
  ] as const)('bad options %j throw InvalidConfigError for %s', (options, key) => {
    const error = (() => {
      try {
        followNode({ url: 'http://node.test/v1', fetch: fake().fetch, ...options } as FollowOptions)
      } catch (e) {
        return e
      }
      return undefined
    })()
    expect(error).toBeInstanceOf(InvalidConfigError)
    expect((error as InvalidConfigError).key).toBe(key)
  })
})

describe('followNode: calibrated mode', () => {
  const CAL = { window: 20, regular: { k: 2, q: 0.9 } }
  const CAL_REFERENCE = calibratedByHeight(CHAIN.slice(495 - 20 + 1 - 470), SMALL, CAL)

  it('backfills the calibrated window, then publishes the calibrated estimate per block; explain and history are the calibrated estimator’s', async () => {
    const node = fake()
    const t = follow(node, { mode: 'calibrated', calibrated: CAL })
    await t.f.ready
    expect(t.f.mode).toBe('calibrated')
    expect(blockPaths(node)).toEqual([...Array(20).keys()].map((i) => 476 + i))
    expect(t.events[0]).toEqual({ type: 'backfill', url: 'http://node.test/v1', from_height: 476, to_height: 495 })
    node.height = 503
    await until(() => t.f.asOf?.block_height === 503, 'block 503')
    const reference = calibratedByHeight(CHAIN.slice(476 - 470, 503 - 470 + 1), SMALL, CAL)
    expect(t.updates.map((u) => u.block_height)).toEqual([495, 496, 497, 498, 499, 500, 501, 502, 503])
    for (const u of t.updates) expect(gasEstimateToJson(u.estimate), `block ${u.block_height}`).toBe(reference.get(String(u.block_height)))
    const explain = t.f.explain()
    expect(explain).toMatchObject({ as_of: { block_height: 503, epoch: 2 }, window: 20, blocks_ingested: 28 })
    expect(explain.tiers.regular.promise).toEqual({ k: 2, q: 0.9 })
    expect(t.f.history().map((b) => Number(b.block_height))).toEqual([...Array(20).keys()].map((i) => 484 + i))
    expect(t.f.history()[0]).not.toHaveProperty('in_estimate')
    await t.f.stop()
  })

  it('backfillBlocks bounds the backfill below the window', async () => {
    const node = fake()
    const t = follow(node, { mode: 'calibrated', calibrated: CAL, backfillBlocks: 5 })
    await t.f.ready
    expect(blockPaths(node)).toEqual([491, 492, 493, 494, 495])
    expect(t.f.explain().blocks_ingested).toBe(5)
    await t.f.stop()
  })

  it('far behind, starts the calibrated estimator over from the newest span, as the server does', async () => {
    const node = fake()
    const t = follow(node, { mode: 'calibrated', calibrated: CAL })
    await t.f.ready
    expect(gasEstimateToJson(t.f.estimate())).toBe(CAL_REFERENCE.get('495'))
    node.height = 650
    await until(() => t.f.asOf?.block_height === 650, 'block 650')
    expect(t.skips()).toEqual([{ type: 'skip', from_height: 496, to_height: 630, reason: 'behind', message: '155 blocks behind; the newest 20 decide the estimate' }])
    expect(t.f.explain().blocks_ingested).toBe(20)
    expect(gasEstimateToJson(t.f.estimate())).toBe(calibratedByHeight(CHAIN.slice(631 - 470, 650 - 470 + 1), SMALL, CAL).get('650'))
    expect(t.updates.map((u) => u.block_height)).toEqual([495, 650])
    await t.f.stop()
  })

  it('an epoch change is reported as keeping the earlier blocks, which still count', async () => {
    const blocks = sampleBlocks(380, 420)
    const node = new FakeNode({ blocks, height: 405 })
    const t = follow(node, { mode: 'calibrated', calibrated: CAL })
    await t.f.ready
    const epoch = t.events.filter((e) => e.type === 'epoch')
    expect(epoch).toEqual([{ type: 'epoch', block_height: 401, from_epoch: 1, to_epoch: 2, dropped: false }])
    expect(formatFollowEvent(epoch[0] as FollowEvent)).toBe('epoch 1 -> 2 at block 401: earlier blocks still count')
    expect(t.f.history()).toHaveLength(20)
    expect(gasEstimateToJson(t.f.estimate())).toBe(calibratedByHeight(blocks.slice(386 - 380, 405 - 380 + 1), SMALL, CAL).get('405'))
    await t.f.stop()
  })
})
