import { InvalidConfigError } from '../core/errors.js'
import { toU64, type U64 } from '../core/u64.js'
import { appendThroughOutages, retryUnavailable, type BlockKey, type OutageOptions } from '../ledger/ingest/outage.js'
import type { BatchAppendStore } from '../ledger/store/store.js'
import type { BlockJson } from '../ledger/store/types.js'
import type { RetryPolicy } from './backoff.js'
import { NodeResponseError } from './errors.js'
import type { RetryEvent } from './events.js'
import { fetchBlock } from './fetch-block.js'
import { nodeClientOf, resolveFollowOptions } from './follow-options.js'
import { parseLedgerInfo, type NodePosition } from './ledger-info.js'
import type { NodeClient } from './node-client.js'
import type { Sleep } from './sleep.js'

/** Options of `ingestFromNode`. `url` and `store` are required. */
export interface IngestNodeOptions {
  /** The node's API base, `/v1` included. */
  url: string
  /** The ledger to append to; it continues from its newest block. */
  store: BatchAppendStore
  /** Stops the ingest (what was appended stays); `ingestFromNode` then resolves. */
  signal?: AbortSignal | undefined
  /** Return once the ledger reaches the node's height instead of following it. Default false. */
  once?: boolean | undefined
  /** Height to start at when the ledger is empty; default the node's newest minus `backfillBlocks` − 1 (at most back to its oldest). */
  startHeight?: U64 | undefined
  /** Blocks taken before the node's newest when an empty ledger starts (default 1000). */
  backfillBlocks?: number | undefined
  /** Most blocks per commit while catching up (default 64); once caught up each block commits as it comes. */
  batchBlocks?: number | undefined
  /** Blocks requested at once (default 4). */
  concurrency?: number | undefined
  /** Wait between polls of the node once caught up (ms, default 1000). */
  intervalMs?: number | undefined
  /** Called after each commit with the ledger's new height and the blocks it added. */
  onAppend?: ((height: U64, blocks: number) => void) | undefined
  /** Called before each retry of a request to the node. */
  onRetry?: ((event: RetryEvent) => void) | undefined
  /**
   * How an outage of the ledger's database is ridden out: reads and commits failing with
   * `LedgerUnavailableError` are retried with backoff, the fetched blocks kept, until they
   * succeed (`retryUnavailable`); `signal` stops the retries.
   */
  outage?: Omit<OutageOptions, 'signal'> | undefined
  /** Retry bounds and backoff of each request; see `DEFAULT_RETRY_POLICY`. */
  retry?: Partial<RetryPolicy> | undefined
  /** Per-request timeout, body included (ms, default 10000). */
  timeoutMs?: number | undefined
  /** Test seams, as `followNode` has them. */
  fetch?: typeof fetch | undefined
  sleep?: Sleep | undefined
  random?: (() => number) | undefined
  now?: (() => number) | undefined
}

/** What `ingestFromNode` did. */
export interface IngestNodeSummary {
  /** Blocks appended. */
  appended: number
  /** The ledger's height at the end, `null` if it is still empty. */
  height: U64 | null
}

/**
 * Appends a node's blocks to a ledger store, following the node: `GET {url}/` for its height,
 * `GET {url}/blocks/by_height/{h}?with_transactions=true` (completed through `/transactions`
 * when the node caps the list) for each block, in height order, committed in batches of whole
 * blocks (`appendBlocks`). Resumable: it always continues from the ledger's newest block, so a
 * run that crashed or was stopped is finished by starting it again, with nothing lost or
 * duplicated. Requests are retried as `followNode`'s are.
 *
 * @throws InvalidConfigError for a bad option.
 * @throws NodeResponseError when the node no longer serves the block the ledger needs next
 *   (pruned, or missing below its height) or answers what cannot be used; the store's refusal
 *   (the node's chain does not continue the ledger); `NodeUnavailableError` after the retries.
 */
export async function ingestFromNode(options: IngestNodeOptions): Promise<IngestNodeSummary> {
  const o = resolveFollowOptions({
    url: options.url,
    fetch: options.fetch,
    intervalMs: options.intervalMs,
    retry: options.retry,
    timeoutMs: options.timeoutMs,
    concurrency: options.concurrency,
    sleep: options.sleep,
    random: options.random,
    now: options.now,
  } as Parameters<typeof resolveFollowOptions>[0])
  const store = options.store
  const batch = BigInt(positive('batchBlocks', options.batchBlocks ?? 64))
  const backfill = BigInt(positive('backfillBlocks', options.backfillBlocks ?? 1000))
  const controller = new AbortController()
  const onAbort = () => controller.abort(options.signal?.reason)
  if (options.signal?.aborted) controller.abort(options.signal.reason)
  else options.signal?.addEventListener('abort', onAbort, { once: true })
  const client = nodeClientOf(o, controller.signal, options.onRetry ?? (() => {}))
  const fetchOptions = { pageSize: o.pageSize, pageTransactions: o.pageTransactions }
  let appended = 0
  const outage: OutageOptions = { ...options.outage, signal: controller.signal }
  const stored = await retryUnavailable(() => store.ledgerInfo(), outage)
  let height: bigint | null = stored === null ? null : BigInt(stored.block_height)
  try {
    let node = await nodePosition(client)
    let next = height !== null ? height + 1n : options.startHeight !== undefined ? BigInt(options.startHeight) : maxBig(node.oldest_block_height, node.block_height + 1n - backfill)
    for (;;) {
      if (next > node.block_height) {
        if (options.once) break
        await o.sleep(o.intervalMs, controller.signal)
        const seen = await nodePosition(client)
        // A load-balanced node may lag its peers: heights heard only grow.
        if (seen.block_height > node.block_height) node = seen
        continue
      }
      const last = minBig(node.block_height, next + batch - 1n)
      const blocks: BlockJson[] = []
      for (let h = next; h <= last; h += BigInt(o.concurrency)) {
        const window: bigint[] = []
        for (let k = h; k <= last && k < h + BigInt(o.concurrency); k++) window.push(k)
        const outcomes = await Promise.all(window.map((k) => fetchBlock(client, k, fetchOptions)))
        for (const [i, outcome] of outcomes.entries()) {
          if (outcome.kind !== 'block') {
            const what = outcome.kind === 'pruned' ? 'has pruned' : 'does not serve'
            throw new NodeResponseError(`${o.url}/blocks/by_height/${window[i]}`, outcome.kind === 'pruned' ? 410 : 404, `the node ${what} block ${window[i]}, which the ledger needs next (${outcome.message})`)
          }
          blocks.push(outcome.block)
        }
      }
      const result = await appendThroughOutages(store, blocks, (some) => store.appendBlocks(some), keyOfBlock, outage)
      appended += result.appended
      if (result.appended > 0) {
        height = next + BigInt(result.appended) - 1n
        options.onAppend?.(toU64(height), result.appended)
      }
      if (result.appended < blocks.length) throw result.refused
      next = last + 1n
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error
  } finally {
    controller.abort()
    options.signal?.removeEventListener('abort', onAbort)
    await client.settled()
  }
  return { appended, height: height === null ? null : toU64(height) }
}

async function nodePosition(client: NodeClient): Promise<NodePosition> {
  const answer = await client.get('/', 'return')
  if (answer.status !== 200) throw new NodeResponseError(answer.url, answer.status, `HTTP ${answer.status}: no ledger info here; the URL should be the API root, /v1 included`)
  const info = parseLedgerInfo(answer.body)
  if ('bad' in info) throw new NodeResponseError(answer.url, answer.status, `ledger info ${info.bad} must be a u64 decimal string, got ${JSON.stringify(info.value) ?? 'nothing'}`)
  return info
}

const keyOfBlock = (b: BlockJson): BlockKey => ({ height: toU64(BigInt(b.block_height)), hash: b.block_hash })

function positive(key: string, value: number): number {
  if (!(Number.isSafeInteger(value) && value >= 1)) throw new InvalidConfigError(key, `must be a positive integer, got ${value}`)
  return value
}

const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b)
const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b)
