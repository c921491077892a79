import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LedgerInfo } from '../../ledger/store/store.js'
import { acceptTypeOf } from '../plumbing/accept.js'
import { BCS_TYPE, gasEstimationToBcs } from '../bcs.js'
import { JSON_TYPE, readLedger, type ApiContext } from '../context.js'
import type { ApiRoute } from '../openapi.js'
import { ref } from '../schema/ref.js'
import { withDeadline } from '../plumbing/store-guard.js'
import { quietLogger } from './quiet-logger.js'
import { responses } from './responses.js'

/**
 * `GET /v1/estimate_gas_price`: the engine's estimate at the store's current block height. The
 * endpoint wallets poll, so its steady state is kept cheap inside Fastify: synchronous for an
 * in-process store (one ledger-info read, cached ledger headers), the body sent as the feed's
 * cached JSON (or its BCS, rebuilt once per new estimate), request logs at `warn` only.
 * `Accept: application/x-bcs` gets the node's BCS `GasEstimation` (26 bytes).
 */
export function estimateGasPriceRoute(ctx: ApiContext): ApiRoute {
  let bcsFor = ''
  let bcs: Buffer = Buffer.alloc(0)
  const body = (request: FastifyRequest, reply: FastifyReply): string | Buffer => {
    const json = ctx.feed.json
    ctx.metrics.gasRecorder.record(json, ctx.feed.estimate())
    const accept = request.headers.accept
    if (accept !== undefined && acceptTypeOf(accept) === 'bcs') {
      if (bcsFor !== json) {
        bcs = gasEstimationToBcs(ctx.feed.estimate())
        bcsFor = json
      }
      reply.header('content-type', BCS_TYPE)
      return bcs
    }
    reply.header('content-type', JSON_TYPE)
    return json
  }
  const send = (request: FastifyRequest, reply: FastifyReply, info: LedgerInfo): string | Buffer | Promise<string | Buffer> => {
    const fed = ctx.feed.height
    if (fed !== null && fed === info.block_height) return body(request, reply)
    // Each store read of the catch-up is bounded; so is the whole, as the catch-up may queue behind another.
    return withDeadline(ctx.feed.syncTo(info), ctx.storeTimeoutMs, 'estimate catch-up').then(() => body(request, reply))
  }
  return {
    method: 'GET',
    url: '/estimate_gas_price',
    logLevel: 'warn',
    childLoggerFactory: quietLogger,
    config: { produces: 'json+bcs' },
    schema: {
      operationId: 'estimate_gas_price',
      summary: 'Estimate gas price',
      description:
        'Gives an estimate of the gas unit price required to get a transaction on chain in a reasonable time: the minimum gas unit price that would have been required to get into recent full blocks (the minimum gas unit price when blocks are not full). Three values: deprioritized (low), regular, and prioritized (aggressive); more aggressive values use a longer history and a higher percentile. See AIP-34. With `Accept: application/x-bcs`, the BCS `GasEstimation`.',
      tags: ['Transactions'],
      response: responses(ref('GasEstimation'), [400, 403, 404, 500, 503]),
    },
    handler(request: FastifyRequest, reply: FastifyReply) {
      const info = readLedger(ctx, reply)
      return info instanceof Promise ? info.then((i) => send(request, reply, i)) : send(request, reply, info)
    },
  }
}
