import type { FastifyReply, FastifyRequest } from 'fastify'
import { JSON_TYPE, readLedger, type ApiContext } from '../context.js'
import { withDeadline } from '../store-guard.js'
import type { LedgerInfo } from '../../ledger/store.js'
import { ref } from '../schema/ref.js'
import type { ApiRoute } from '../openapi.js'
import { responses } from './responses.js'

/**
 * `GET /v1/estimate_gas_price`: the engine's estimate at the store's current block height, sent
 * pre-serialized with exact JSON integers. The hot path is synchronous for an in-process store:
 * one ledger-info read, cached headers, a cached body.
 */
export function estimateGasPriceRoute(ctx: ApiContext): ApiRoute {
  const send = (reply: FastifyReply, info: LedgerInfo): string | Promise<string> => {
    reply.header('content-type', JSON_TYPE)
    const fed = ctx.feed.height
    if (fed !== null && fed === info.block_height) return ctx.feed.json
    // Each store read of the catch-up is bounded; so is the whole, as the catch-up may queue behind another.
    return withDeadline(ctx.feed.syncTo(info), ctx.storeTimeoutMs, 'estimate catch-up').then(() => ctx.feed.json)
  }
  return {
    method: 'GET',
    url: '/estimate_gas_price',
    schema: {
      operationId: 'estimate_gas_price',
      summary: 'Estimate gas price',
      description:
        'Gives an estimate of the gas unit price required to get a transaction on chain in a reasonable time: the minimum gas unit price that would have been required to get into recent full blocks (the minimum gas unit price when blocks are not full). Three values: deprioritized (low), regular, and prioritized (aggressive); more aggressive values use a longer history and a higher percentile. See AIP-34.',
      tags: ['Transactions'],
      response: responses(ref('GasEstimation'), [400, 403, 404, 500, 503]),
    },
    handler(_request: FastifyRequest, reply: FastifyReply) {
      const info = readLedger(ctx, reply)
      return info instanceof Promise ? info.then((i) => send(reply, i)) : send(reply, info)
    },
  }
}
