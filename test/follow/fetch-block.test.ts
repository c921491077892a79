import { describe, expect, it } from 'vitest'
import { gasEstimateToJson } from '../../src/core/index.js'
import { DEFAULT_RETRY_POLICY } from '../../src/follow/backoff.js'
import { NodeResponseError } from '../../src/follow/errors.js'
import { fetchBlock } from '../../src/follow/fetch-block.js'
import type { FollowEvent } from '../../src/follow/events.js'
import { followNode } from '../../src/follow/follow-node.js'
import { NodeClient } from '../../src/follow/node-client.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { answer, FakeNode, type FakeNodeOptions } from '../helpers/fake-node.js'
import { estimatesByHeight, sampleBlocks } from '../helpers/sample-chain.js'

/** Blocks 982 and 983 of the sample chain hold 302 transactions each, 984 holds 220 (a surge). */
const SURGE = sampleBlocks(970, 1000)
const SMALL = { low_block_history: 3, market_block_history: 5, aggressive_block_history: 10 }

function clientOf(node: FakeNode) {
  return new NodeClient({
    baseUrl: 'http://node.test/v1',
    fetch: node.fetch,
    signal: new AbortController().signal,
    retry: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1, maxDelayMs: 2 },
    timeoutMs: 1000,
    headerPrefixes: ['X-APTOS-'],
    sleep: async () => {},
    random: Math.random,
    now: Date.now,
    onRetry: () => {},
  })
}

const node = (o: Partial<FakeNodeOptions> = {}) => new FakeNode({ blocks: SURGE, blockPage: 100, txnPage: 40, ...o })

describe('fetchBlock', () => {
  it('completes a block longer than the node’s page through /transactions, page by page', async () => {
    const n = node()
    const outcome = await fetchBlock(clientOf(n), 982n, { pageSize: 100, pageTransactions: true })
    expect(outcome.kind).toBe('block')
    const { block, pages } = outcome as { block: BlockJson; pages: number }
    expect(block).toEqual(SURGE[982 - 970])
    // 302 txns: 100 with the block, then pages of at most 40 (the node's cap under the asked limit).
    expect(pages).toBe(6)
    expect(n.paths).toEqual([
      '/v1/blocks/by_height/982?with_transactions=true',
      '/v1/transactions?start=4806&limit=100',
      '/v1/transactions?start=4846&limit=100',
      '/v1/transactions?start=4886&limit=100',
      '/v1/transactions?start=4926&limit=82',
      '/v1/transactions?start=4966&limit=42',
      '/v1/transactions?start=5006&limit=2',
    ])
  })
  it('asks for no more than pageSize per page', async () => {
    const n = node({ txnPage: 1000 })
    await fetchBlock(clientOf(n), 983n, { pageSize: 150, pageTransactions: true })
    expect(n.paths.slice(1)).toEqual(['/v1/transactions?start=5108&limit=150', '/v1/transactions?start=5258&limit=52'])
  })
  it('a complete block costs one request: a node like this project’s server is never asked for /transactions', async () => {
    const n = node({ blockPage: undefined, serveTransactions: false })
    const outcome = await fetchBlock(clientOf(n), 982n, { pageSize: 100, pageTransactions: true })
    expect(outcome).toMatchObject({ kind: 'block', pages: 0 })
    expect(n.paths).toEqual(['/v1/blocks/by_height/982?with_transactions=true'])
  })
  it('a short block from a node without /transactions is an error naming the block and the count', async () => {
    const n = node({ serveTransactions: false })
    await expect(fetchBlock(clientOf(n), 982n, { pageSize: 100, pageTransactions: true })).rejects.toThrow(/block 982 came with 100 of 302 transactions and the node does not serve the rest/)
  })
  it('with paging off, a short block is an error and /transactions is never asked', async () => {
    const n = node()
    await expect(fetchBlock(clientOf(n), 982n, { pageSize: 100, pageTransactions: false })).rejects.toThrow(/block 982 came with 100 of 302 transactions and paging through \/transactions is off/)
    expect(n.paths).toHaveLength(1)
  })
  it('a page that does not start at the version asked for is refused', async () => {
    const n = node({ fault: (path) => (path.startsWith('/v1/transactions') ? answer(200, [{ version: '999' }]) : undefined) })
    await expect(fetchBlock(clientOf(n), 982n, { pageSize: 100, pageTransactions: true })).rejects.toThrow(/transaction 0 has version "999", expected "4806"/)
  })
  it('an empty page is refused rather than looped on', async () => {
    const n = node({ fault: (path) => (path.startsWith('/v1/transactions') ? answer(200, []) : undefined) })
    await expect(fetchBlock(clientOf(n), 982n, { pageSize: 100, pageTransactions: true })).rejects.toThrow(NodeResponseError)
  })
  it('a page pruned meanwhile (410) makes the block pruned', async () => {
    const n = node({ fault: (path) => (path.startsWith('/v1/transactions') ? answer(410, { message: 'Ledger version(4806) has been pruned', error_code: 'version_pruned' }) : undefined) })
    expect(await fetchBlock(clientOf(n), 982n, { pageSize: 100, pageTransactions: true })).toMatchObject({ kind: 'pruned', message: 'Ledger version(4806) has been pruned' })
  })
  it('a body for another height is refused', async () => {
    const n = node({ fault: (path) => (path.includes('/by_height/') ? answer(200, SURGE[0]) : undefined) })
    await expect(fetchBlock(clientOf(n), 982n, { pageSize: 100, pageTransactions: true })).rejects.toThrow(/asked for block 982, got block 970/)
  })
})

describe('following a node that pages large blocks', () => {
  it('the estimate equals the engine’s over the complete blocks, not over the truncated ones', async () => {
    const n = node({ height: 990 })
    const events: FollowEvent[] = []
    const f = followNode({ url: 'http://node.test/v1', fetch: n.fetch, config: SMALL, intervalMs: 5, onEvent: (e) => events.push(e) })
    await f.ready
    await f.stop()
    const want = estimatesByHeight(SURGE, SMALL).get('990')
    expect(gasEstimateToJson(f.estimate())).toBe(want)
    const truncated = SURGE.map((b) => ({ ...b, transactions: b.transactions.slice(0, 100), last_version: String(Number(b.first_version) + Math.min(100, b.transactions.length) - 1) }))
    expect(estimatesByHeight(truncated, SMALL).get('990')).not.toBe(want)
    expect(events.filter((e) => e.type === 'paged')).toEqual([
      { type: 'paged', block_height: 981, pages: 1 },
      { type: 'paged', block_height: 982, pages: 6 },
      { type: 'paged', block_height: 983, pages: 6 },
      { type: 'paged', block_height: 984, pages: 3 },
    ])
    expect(n.duplicates).toBe(0)
  })
})
