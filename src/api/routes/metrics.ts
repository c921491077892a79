import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { LedgerInfo } from '../../ledger/store/store.js'
import type { ApiContext } from '../context.js'
import { quietLogger } from './quiet-logger.js'

/**
 * `GET /metrics`: the server's Prometheus metrics (text format 0.0.4), outside `/v1` as on the
 * Aptos node (whose metrics port serves `/metrics`). The ledger gauges are read at scrape time;
 * a ledger that cannot be read leaves them at their last values and the scrape still succeeds.
 */
export function metricsRoute(ctx: ApiContext): RouteOptions {
  return {
    method: 'GET',
    url: '/metrics',
    logLevel: 'warn',
    childLoggerFactory: quietLogger,
    config: { operationId: 'metrics', produces: 'other' },
    async handler(_request: FastifyRequest, reply: FastifyReply) {
      let info: LedgerInfo | null = null
      try {
        info = await ctx.store.ledgerInfo()
      } catch {
        // The scrape reports what it can; the ledger's failure shows on the API routes.
      }
      const text = await ctx.metrics.text(info)
      reply.header('content-type', ctx.metrics.registry.contentType)
      return text
    },
  }
}
