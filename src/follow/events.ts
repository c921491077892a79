import type { U64 } from '../core/u64.js'
import type { GasEstimate } from '../core/wire.js'
import type { RetryEvent } from './node-client.js'

export type { RetryEvent }

/** A new estimate, as of the newest block the follower has ingested. */
export interface EstimateUpdate {
  block_height: U64
  epoch: U64
  estimate: GasEstimate
}

/** Why blocks were not ingested. */
export type SkipReason =
  /** 410 from the node, or its oldest block moved past them: pruned before the follower got there. */
  | 'pruned'
  /** 404 after the retries for a block at or below the node's height. */
  | 'gap'
  /** The block's JSON is not something the engine can read (or it broke the engine's order rules). */
  | 'invalid_block'
  /** More than the backfill span behind the node: only the newest blocks bear on the estimate. */
  | 'behind'

/** What the follower did that a log should say. */
export type FollowEvent =
  /** Bootstrap: the heights about to be read before the first estimate. */
  | { type: 'backfill'; url: string; from_height: U64; to_height: U64 }
  /** Backfill done: the first estimate is out. */
  | { type: 'ready'; block_height: U64 | null; blocks_ingested: number; requests: number; elapsed_ms: number }
  | RetryEvent
  /** Heights `from_height..to_height` (inclusive) were passed over. */
  | { type: 'skip'; from_height: U64; to_height: U64; reason: SkipReason; message: string }
  /**
   * The block at `block_height` opened a new epoch. `dropped`: the estimator no longer counts the
   * older epoch's blocks (the Aptos engine, unless `keep_history_across_epochs`); the calibrated
   * one keeps them.
   */
  | { type: 'epoch'; block_height: U64; from_epoch: U64; to_epoch: U64; dropped: boolean }
  /** A block longer than the node's page was completed through `/transactions`. */
  | { type: 'paged'; block_height: U64; pages: number }

/**
 * One log line for an event, without a trailing newline.
 *
 * @example formatFollowEvent({ type: 'epoch', block_height: 401, from_epoch: 1, to_epoch: 2, dropped: true })
 * // 'epoch 1 -> 2 at block 401: blocks of epoch 1 no longer count'
 */
export function formatFollowEvent(e: FollowEvent): string {
  switch (e.type) {
    case 'backfill':
      return `backfilling blocks ${e.from_height}..${e.to_height} from ${e.url}`
    case 'ready':
      return `caught up at block ${e.block_height ?? '(none)'}: ${e.blocks_ingested} blocks, ${e.requests} requests, ${e.elapsed_ms} ms`
    case 'retry': {
      const after = e.retry_after_ms === null ? '' : `, Retry-After ${e.retry_after_ms} ms`
      return `retry ${e.attempt} of GET ${e.url} in ${e.delay_ms} ms (${e.reason}${after})`
    }
    case 'skip': {
      const range = e.from_height === e.to_height ? `block ${e.from_height}` : `blocks ${e.from_height}..${e.to_height}`
      return `skipped ${range}, ${e.reason}: ${e.message}`
    }
    case 'epoch':
      return `epoch ${e.from_epoch} -> ${e.to_epoch} at block ${e.block_height}: ${e.dropped ? `blocks of epoch ${e.from_epoch} no longer count` : 'earlier blocks still count'}`
    case 'paged':
      return `block ${e.block_height} completed with ${e.pages} /transactions page${e.pages === 1 ? '' : 's'}`
  }
}
