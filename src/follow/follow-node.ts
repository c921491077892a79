import type { PricedBlock } from '../core/block.js'
import { CalibratedEstimator, type CalibratedExplain } from '../core/calibrated/calibrated-estimator.js'
import { InvalidBlockError } from '../core/errors.js'
import { createEstimator, type BlockHistoryEntry, type EstimateExplain, type Estimator } from '../core/estimator.js'
import { toU64, type U64 } from '../core/u64.js'
import type { GasEstimate } from '../core/wire.js'
import { parseBlockJson, type ParsedBlock } from '../ledger/store/parse-block.js'
import type { BlockJson } from '../ledger/store/types.js'
import { NodeResponseError } from './errors.js'
import type { EstimateUpdate, FollowEvent, SkipReason } from './events.js'
import { fetchBlock, type BlockOutcome } from './fetch-block.js'
import { nodeClientOf, resolveFollowOptions, type FollowMode, type FollowOptions } from './follow-options.js'
import { parseLedgerInfo, type NodePosition } from './ledger-info.js'
import type { NodeClient } from './node-client.js'
import type { Sleep } from './sleep.js'

/** What a follower of each mode explains and retains. */
export interface FollowModeTypes {
  aptos: { explain: EstimateExplain; block: BlockHistoryEntry }
  calibrated: { explain: CalibratedExplain; block: PricedBlock }
}

/** A running follower: the local estimate, kept current from the node's blocks. */
export interface Follower<M extends FollowMode = 'aptos'> {
  /** The estimator it runs. */
  readonly mode: M
  /** The current estimate (the engine's fallback, or the floor, before the first block). O(1). */
  estimate(): GasEstimate
  /** How the current estimate was derived (`Estimator.explain` or `CalibratedEstimator.explain`). */
  explain(): FollowModeTypes[M]['explain']
  /** The retained blocks, oldest first (`Estimator.history`, or the calibrated window's `CalibratedEstimator.history`). */
  history(): FollowModeTypes[M]['block'][]
  /** Height and epoch the estimate is as of, `null` before the first block. */
  readonly asOf: { block_height: U64; epoch: U64 } | null
  /** HTTP requests sent so far, retries included. */
  readonly requests: number
  /** Resolves when the backfill is done; rejects if the follower ends first. */
  readonly ready: Promise<void>
  /** Resolves when the follower stops on abort or `stop()`; rejects with the error that ended it otherwise. */
  readonly done: Promise<void>
  /** Stops the follower; resolves as `done` does, once no request or timer is left. */
  stop(): Promise<void>
}

/**
 * Follows a node over HTTP and keeps a gas estimate locally: reads the ledger info
 * (`GET {url}/`), backfills the newest `backfillBlocks` blocks (by default
 * `aggressive_block_history + 1`, or the calibrated `window` with `mode: 'calibrated'`) through
 * `GET {url}/blocks/by_height/{h}?with_transactions=true`, then polls for new blocks and feeds
 * each to the engine in height order. Works with an Aptos node and with `ledger-gas serve`.
 *
 * With `mode: 'calibrated'` it runs `CalibratedEstimator`: its estimate equals that of
 * `ledger-gas serve`'s `GET /v1/gas/estimate` (same config) whenever both ingested the same
 * blocks, e.g. both started from the node's oldest block. When further behind than
 * `backfillBlocks` it starts the calibrated estimator over from the newest ones, as the server
 * does past its span.
 *
 * Resilience: network errors, timeouts, 429 and 5xx are retried with jittered exponential
 * backoff, honouring `Retry-After`; a pruned (410) block is skipped; a 404 below the node's
 * height is retried, then skipped as a gap; heights only ever increase; the same URL is never
 * requested twice at once. Skips and retries are reported through `onEvent`.
 *
 * @throws InvalidConfigError for a bad option or estimator config.
 * @example
 * const follower = followNode({ url: 'https://fullnode.mainnet.aptoslabs.com/v1', signal })
 * await follower.ready
 * follower.estimate() // { deprioritized_gas_estimate: 100, gas_estimate: 100, prioritized_gas_estimate: 150 }
 */
export function followNode<M extends FollowMode = 'aptos'>(options: FollowOptions<M>): Follower<M> {
  return new NodeFollower(options) as unknown as Follower<M>
}

class NodeFollower implements Follower<FollowMode> {
  readonly ready: Promise<void>
  readonly done: Promise<void>
  readonly mode: FollowMode
  readonly #estimator: Estimator | CalibratedEstimator
  readonly #client: NodeClient
  readonly #controller = new AbortController()
  readonly #url: string
  readonly #intervalMs: number
  readonly #concurrency: number
  readonly #span: bigint
  readonly #fetchOptions: { pageSize: number; pageTransactions: boolean }
  readonly #sleep: Sleep
  readonly #now: () => number
  readonly #onEstimate: (update: EstimateUpdate) => void
  readonly #onEvent: (event: FollowEvent) => void
  /** Next height to ingest; everything below it was ingested or skipped. */
  #next = 0n
  /** The node's newest height and oldest retained height, as last heard (never lowered). */
  #tip = -1n
  #oldest = 0n
  /** Whether each ingested block publishes an estimate (not while backfilling or catching up). */
  #live = false
  #resolveReady: () => void = () => {}

  constructor(options: FollowOptions<FollowMode>) {
    const o = resolveFollowOptions(options)
    this.#url = o.url
    this.mode = o.mode
    this.#estimator = o.mode === 'calibrated' ? new CalibratedEstimator(o.config, o.calibrated) : createEstimator(o.config)
    this.#intervalMs = o.intervalMs
    this.#concurrency = o.concurrency
    this.#span = BigInt(o.backfillBlocks)
    this.#fetchOptions = { pageSize: o.pageSize, pageTransactions: o.pageTransactions }
    this.#sleep = o.sleep
    this.#now = o.now
    this.#onEstimate = o.onEstimate
    this.#onEvent = o.onEvent
    this.#client = nodeClientOf(o, this.#controller.signal, (event) => this.#onEvent(event))

    const user = options.signal
    const onUserAbort = () => this.#controller.abort(user?.reason)
    if (user?.aborted) this.#controller.abort(user.reason)
    else user?.addEventListener('abort', onUserAbort, { once: true })
    let rejectReady: (reason: unknown) => void = () => {}
    this.ready = new Promise((resolve, reject) => {
      this.#resolveReady = resolve
      rejectReady = reject
    })
    this.done = this.#run().then(
      () => {},
      async (error: unknown) => {
        const stopped = this.#controller.signal.aborted
        this.#controller.abort()
        await this.#client.settled()
        user?.removeEventListener('abort', onUserAbort)
        // A no-op once the backfill is done.
        rejectReady(stopped ? new Error('the follower stopped before its backfill was done') : error)
        if (!stopped) throw error
      },
    )
    // Both are also for callers who never look: a follower that ends is not an unhandled rejection.
    this.ready.catch(() => {})
    this.done.catch(() => {})
  }

  estimate(): GasEstimate {
    return this.#estimator.estimate()
  }

  explain(): EstimateExplain | CalibratedExplain {
    return this.#estimator.explain()
  }

  history(): BlockHistoryEntry[] | PricedBlock[] {
    return this.#estimator.history()
  }

  get asOf(): { block_height: U64; epoch: U64 } | null {
    const newest = this.#estimator.newest
    return newest === undefined ? null : { block_height: newest.block_height, epoch: newest.epoch }
  }

  get requests(): number {
    return this.#client.requests
  }

  stop(): Promise<void> {
    this.#controller.abort()
    return this.done
  }

  async #run(): Promise<void> {
    const started = this.#now()
    this.#observe(await this.#ledgerInfo())
    const from = this.#tip + 1n - this.#span
    this.#next = from > this.#oldest ? from : this.#oldest
    this.#onEvent({ type: 'backfill', url: this.#url, from_height: toU64(this.#next), to_height: toU64(this.#tip < this.#next ? this.#next : this.#tip) })
    await this.#advance()
    this.#live = true
    const asOf = this.asOf
    this.#onEvent({ type: 'ready', block_height: asOf?.block_height ?? null, blocks_ingested: this.#estimator.blocksIngested, requests: this.requests, elapsed_ms: this.#now() - started })
    this.#resolveReady()
    this.#publish()
    for (;;) {
      if (this.#next > this.#tip) {
        await this.#sleep(this.#intervalMs, this.#controller.signal)
        this.#observe(await this.#ledgerInfo())
        if (this.#next > this.#tip) continue
      }
      const caughtUp = this.#jump()
      this.#live = caughtUp
      await this.#advance()
      if (!caughtUp) {
        this.#live = true
        this.#publish()
      }
    }
  }

  /** `GET {url}/`. @throws NodeResponseError when it is not the ledger info. */
  async #ledgerInfo(): Promise<NodePosition> {
    const answer = await this.#client.get('/', 'return')
    if (answer.status !== 200) {
      throw new NodeResponseError(answer.url, answer.status, `HTTP ${answer.status}: no ledger info here; the URL should be the API root, /v1 included`)
    }
    const info = parseLedgerInfo(answer.body)
    if ('bad' in info) throw new NodeResponseError(answer.url, answer.status, `ledger info ${info.bad} must be a u64 decimal string, got ${JSON.stringify(info.value) ?? 'nothing'}`)
    return info
  }

  /** Learns the node's position; heights heard only grow (a load-balanced node may lag its peers). */
  #observe(p: NodePosition | null): void {
    if (p === null) return
    if (p.block_height > this.#tip) this.#tip = p.block_height
    if (p.oldest_block_height > this.#oldest) this.#oldest = p.oldest_block_height
  }

  /**
   * Moves `next` past what cannot or need not be read: blocks below the node's oldest, and all
   * but the newest `span` when further behind. Returns false after a `behind` jump, when the
   * estimate is only whole again once the span is read.
   */
  #jump(): boolean {
    if (this.#oldest > this.#next) {
      this.#skip(this.#next, this.#oldest - 1n, 'pruned', `the node's oldest block is now ${this.#oldest}`)
      this.#next = this.#oldest
    }
    const behind = this.#tip + 1n - this.#next
    if (behind <= this.#span) return true
    const to = this.#tip + 1n - this.#span
    this.#skip(this.#next, to - 1n, 'behind', `${behind} blocks behind; the newest ${this.#span} decide the estimate`)
    this.#next = to
    // The calibrated levels and outcomes assume consecutive blocks: across the gap, a quote would
    // be scored on blocks that came long after it. Start over from the newest span, as the server does.
    if (this.#estimator instanceof CalibratedEstimator) this.#estimator.clear()
    return false
  }

  /**
   * Ingests heights `next..tip` in order while up to `concurrency` of them are fetched ahead;
   * `tip` may grow meanwhile from the responses' ledger headers. Invariant: `next` only grows,
   * so a block is never ingested out of order or twice.
   */
  async #advance(): Promise<void> {
    const ahead = new Map<bigint, Promise<BlockOutcome>>()
    while (this.#next <= this.#tip) {
      const h = this.#next
      for (let k = h; k <= this.#tip && k < h + BigInt(this.#concurrency); k++) {
        if (ahead.has(k)) continue
        const pending = fetchBlock(this.#client, k, this.#fetchOptions)
        pending.catch(() => {})
        ahead.set(k, pending)
      }
      const outcome = await (ahead.get(h) as Promise<BlockOutcome>)
      ahead.delete(h)
      this.#observe(outcome.position)
      if (outcome.kind === 'block') {
        if (outcome.pages > 0) this.#onEvent({ type: 'paged', block_height: toU64(h), pages: outcome.pages })
        this.#next = h + 1n
        this.#ingest(h, outcome.block)
      } else if (outcome.kind === 'missing') {
        this.#next = h + 1n
        this.#skip(h, h, 'gap', outcome.message)
      } else {
        if (this.#oldest <= h) this.#observe(await this.#ledgerInfo())
        const to = this.#oldest > h ? this.#oldest : h + 1n
        this.#next = to
        this.#skip(h, to - 1n, 'pruned', outcome.message)
      }
      for (const k of ahead.keys()) if (k < this.#next) ahead.delete(k)
    }
  }

  #ingest(h: bigint, block: BlockJson): void {
    let parsed: ParsedBlock
    const previous = this.#estimator.newest
    try {
      parsed = parseBlockJson(block)
      this.#estimator.ingest(parsed)
    } catch (error) {
      if (!(error instanceof InvalidBlockError)) throw error
      this.#skip(h, h, 'invalid_block', error.message)
      return
    }
    if (previous !== undefined && previous.epoch !== parsed.epoch) {
      // The Aptos engine counts only the current epoch (unless configured otherwise); a requirement is a price, so the calibrated one keeps all.
      const dropped = this.#estimator instanceof CalibratedEstimator ? false : !this.#estimator.config.keep_history_across_epochs
      this.#onEvent({ type: 'epoch', block_height: parsed.block_height, from_epoch: previous.epoch, to_epoch: parsed.epoch, dropped })
    }
    if (this.#live) this.#publish()
  }

  #skip(from: bigint, to: bigint, reason: SkipReason, message: string): void {
    this.#onEvent({ type: 'skip', from_height: toU64(from), to_height: toU64(to), reason, message })
  }

  #publish(): void {
    const newest = this.#estimator.newest
    if (newest === undefined) return
    this.#onEstimate({ block_height: newest.block_height, epoch: newest.epoch, estimate: this.#estimator.estimate() })
  }
}
