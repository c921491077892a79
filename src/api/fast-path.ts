import type { IncomingMessage, ServerResponse } from 'node:http'
import type { LedgerInfo } from '../ledger/store.js'
import { JSON_TYPE, type ApiContext } from './context.js'

/** The one URL the fast path answers. */
export const FAST_PATH_URL = '/v1/estimate_gas_price'

/**
 * `GET /v1/estimate_gas_price` answered straight from `node:http`, before Fastify's routing, in
 * the steady state: a synchronous store whose ledger info is at the estimate's height. The reply
 * is byte-for-byte the Fastify route's (same status, headers and body; a test holds them equal),
 * written as one precomputed header list and the cached body. Anything else — a query string, an
 * async or empty or failing store, a ledger the estimate has not caught up with — returns `false`
 * and the request goes through Fastify, which handles every error and the catch-up.
 *
 * Why: the estimate is the endpoint wallets poll; this keeps its cost near a bare `node:http`
 * server's (bench/http.ts).
 */
export function createEstimateFastPath(ctx: ApiContext): (req: IncomingMessage, res: ServerResponse) => boolean {
  let lastHeaders: Record<string, string> | null = null
  let lastBody = ''
  let flat: string[] = []
  let asyncStore = false
  return (req, res) => {
    if (asyncStore || req.url !== FAST_PATH_URL || req.method !== 'GET') return false
    let info: LedgerInfo | null | Promise<LedgerInfo | null>
    try {
      info = ctx.store.ledgerInfo()
    } catch {
      return false
    }
    if (info === null) return false
    if (typeof (info as Promise<unknown>).then === 'function') {
      asyncStore = true
      ;(info as Promise<unknown>).catch(() => {})
      return false
    }
    const ledger = info as LedgerInfo
    const fed = ctx.feed.height
    if (fed === null || fed !== ledger.block_height) return false
    const headers = ctx.headers.of(ledger)
    const body = ctx.feed.json
    if (headers !== lastHeaders || body !== lastBody) {
      flat = []
      for (const [k, v] of Object.entries(headers)) flat.push(k.toLowerCase(), v)
      flat.push('content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(body)))
      lastHeaders = headers
      lastBody = body
    }
    res.writeHead(200, flat)
    res.end(body)
    return true
  }
}
