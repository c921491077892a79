import type { FastifyReply, FastifyRequest } from 'fastify'
import { MAX_PROMISE_K } from '../../core/calibrated/calibrated-config.js'
import type { TxnKind } from '../../core/txn-kind.js'
import { stringifyExact } from '../../core/wire.js'
import { JSON_TYPE, readEstimators, readLedger, type ApiContext } from '../context.js'
import type { ApiRoute } from '../openapi.js'
import { PARAM } from '../params.js'
import { object, ref } from '../schema/ref.js'
import { checkK, checkQ } from './gas-params.js'
import { responses } from './responses.js'

/**
 * `GET /v1/gas/price?k=K&q=Q`: the calibrated estimator's `priceFor(k, q)`: from the tiers'
 * learner at a tier's horizon, else the empirical q-quantile of the newest `window` submission
 * points (at least the minimum gas unit price); `null` before `k` blocks.
 * O(window log window).
 */
export function gasPriceRoute(ctx: ApiContext): ApiRoute {
  return {
    method: 'GET',
    url: '/gas/price',
    schema: {
      operationId: 'get_gas_price',
      summary: 'Gas price for a promise',
      description:
        'The least gas unit price included within k blocks with probability at least q, at least the minimum gas unit price. At a horizon k that a tier of /gas/estimate promises, it answers from the same learner as the tiers (a tier and this query with the same k and q give the same price); at other horizons it is the empirical q-quantile of the k-block minimum cutoffs within the calibrated window.',
      tags: ['Gas'],
      querystring: object(
        {
          k: { ...PARAM.u16, minimum: 1, maximum: MAX_PROMISE_K, description: `Blocks within which inclusion is wanted, 1 to ${MAX_PROMISE_K}` },
          q: { ...PARAM.decimal, minimum: 0, maximum: 1, description: 'Wanted share of inclusion, strictly between 0 and 1 (a plain decimal such as 0.95)' },
          kind: { ...PARAM.txn_kind, description: 'Transaction kind (standard, encrypted, high_limit): the price is at least its minimum gas unit price. Default standard' },
        },
        ['k', 'q'],
      ),
      response: responses(ref('PriceForInclusion'), [400, 403, 500, 503]),
    },
    async handler(request: FastifyRequest, reply: FastifyReply) {
      const query = request.query as { k: number; q: number; kind?: TxnKind }
      const k = checkK(query.k)
      const q = checkQ(query.q)
      const info = await readLedger(ctx, reply)
      const answer = await readEstimators(ctx, info, (view) => {
        const e = view.calibrated
        // The submission points of the newest `window` blocks whose next k blocks are known (what priceFor reads).
        const samples = Math.max(0, Math.min(e.blocksIngested, e.calibrated.window) - k + 1)
        return { k, q, price: e.priceFor(k, q, query.kind ?? 'standard'), samples }
      })
      reply.header('content-type', JSON_TYPE)
      return stringifyExact(answer)
    },
  }
}
