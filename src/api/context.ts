import type { FastifyReply } from 'fastify'
import type { LedgerInfo, LedgerStore } from '../ledger/store/store.js'
import type { EstimateFeed, FeedView } from '../service/estimate-feed.js'
import { ApiError } from './plumbing/errors.js'
import type { LedgerHeaders } from './ledger-headers.js'
import type { ServerMetrics } from './plumbing/metrics.js'
import type { ReadinessSource } from './plumbing/readiness.js'
import { withDeadline } from './plumbing/store-guard.js'

/** What the route handlers share: the store, the estimate, page sizes and the header builder. */
export interface ApiContext {
  /** The store behind `guardStore`: answers checked, asynchronous reads bounded by `storeTimeoutMs`. */
  store: LedgerStore
  feed: EstimateFeed
  headers: LedgerHeaders
  defaultPageSize: number
  maxPageSize: number
  nodeRole: 'full_node' | 'validator'
  gitHash: string | undefined
  /** Deadline of one asynchronous store read, and of the estimate's catch-up in a request. */
  storeTimeoutMs: number
  metrics: ServerMetrics
  /** Wall clock (ms since the Unix epoch); injectable so health checks can be tested. */
  clock: () => number
  /** What keeps the ledger current, when something does (`serve --follow`): the health check answers 503 while it is not ready. */
  readiness: ReadinessSource | undefined
}

/** JSON content type of every body the API sends. */
export const JSON_TYPE = 'application/json; charset=utf-8'

function unavailable(cause?: unknown): ApiError {
  return cause === undefined
    ? new ApiError('ledger_unavailable', 'Ledger info is unavailable: the ledger holds no block yet')
    : new ApiError('ledger_unavailable', 'Ledger info is unavailable: the ledger could not be read', { cause })
}

function attach(ctx: ApiContext, reply: FastifyReply, info: LedgerInfo | null): LedgerInfo {
  if (info === null) throw unavailable()
  reply.headers(ctx.headers.of(info))
  return info
}

/**
 * Reads the ledger info once for the request and puts the ledger headers on the reply, so that
 * an error thrown later still carries them. Synchronous when the store is (the common case), so
 * the hot path awaits nothing.
 *
 * @throws ApiError `ledger_unavailable` (503) when the store is empty or fails.
 */
export function readLedger(ctx: ApiContext, reply: FastifyReply): LedgerInfo | Promise<LedgerInfo> {
  let result: LedgerInfo | null | Promise<LedgerInfo | null>
  try {
    result = ctx.store.ledgerInfo()
  } catch (error) {
    throw unavailable(error)
  }
  if (result !== null && typeof (result as Promise<unknown>).then === 'function') {
    return (result as Promise<LedgerInfo | null>).then(
      (info) => attach(ctx, reply, info),
      (error: unknown) => {
        throw unavailable(error)
      },
    )
  }
  return attach(ctx, reply, result as LedgerInfo | null)
}

/**
 * Runs `reader` on both estimators once they are whole at `info`'s height (or newer), for the
 * `/v1/gas/*` routes. The wait (a catch-up, or updates queued before it) is bounded by
 * `storeTimeoutMs` like the estimate's catch-up.
 *
 * @throws ApiError `store_timeout` (503) past the deadline; whatever the catch-up's store reads throw.
 */
export function readEstimators<T>(ctx: ApiContext, info: LedgerInfo, reader: (view: FeedView) => T): Promise<T> {
  return withDeadline(ctx.feed.read(info, reader), ctx.storeTimeoutMs, 'estimate catch-up')
}
