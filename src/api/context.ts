import type { FastifyReply } from 'fastify'
import type { LedgerInfo, LedgerStore } from '../ledger/store/store.js'
import type { EstimateFeed, FeedView } from './estimate-feed.js'
import { ApiError } from './errors.js'
import type { LedgerHeaders } from './ledger-headers.js'
import type { RouteRecorder, ServerMetrics } from './metrics.js'
import { withDeadline } from './store-guard.js'

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
}

/**
 * What a route sends, for content negotiation: `json` routes answer `Accept: application/x-bcs`
 * with 400 `bcs_not_supported`; `json+bcs` routes encode BCS themselves; `other` (HTML, text,
 * event streams) is never JSON, so never mislabelled.
 */
export type Produces = 'json' | 'json+bcs' | 'other'

/** Fastify route `config` of every route of this server. */
export interface RouteConfig {
  /** Operation id: the `operation_id` label of the request metrics and the name `disabled` takes. */
  operationId: string
  produces: Produces
  /** Its request metrics, made once when the route is registered. */
  recorder?: RouteRecorder
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
