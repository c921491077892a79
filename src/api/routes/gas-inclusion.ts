import type { FastifyReply, FastifyRequest } from 'fastify'
import { MAX_PROMISE_K } from '../../core/calibrated/calibrated-config.js'
import type { TxnKind } from '../../core/txn-kind.js'
import type { U64 } from '../../core/u64.js'
import { stringifyExact } from '../../core/wire.js'
import { JSON_TYPE, readEstimators, readLedger, type ApiContext } from '../context.js'
import type { ApiRoute } from '../openapi.js'
import { PARAM } from '../params.js'
import { object, ref } from '../schema/ref.js'
import { checkK } from './gas-params.js'
import { responses } from './responses.js'

/**
 * `GET /v1/gas/inclusion?price=P&k=K`: the calibrated estimator's `inclusionProbability`: the
 * chance that a transaction at `price`, submitted now, is included within `k` blocks, from the
 * tiers' learner at a tier's horizon, else read off the newest `window` blocks. O(window).
 */
export function gasInclusionRoute(ctx: ApiContext): ApiRoute {
  return {
    method: 'GET',
    url: '/gas/inclusion',
    schema: {
      operationId: 'get_gas_inclusion',
      summary: 'Inclusion probability of a gas price',
      description:
        'The chance that a transaction at this gas unit price is included within k blocks: a block that was not full took any price, a full one only a price above its cheapest included one. At a horizon k that a tier of /gas/estimate promises, it answers from the same learner as the tiers (a tier\'s own price reads at least its q); at other horizons it is the share of the recent submission points (within the calibrated window) at which the price was included.',
      tags: ['Gas'],
      querystring: object(
        {
          price: { ...PARAM.u64, description: 'Gas unit price (u64)' },
          k: { ...PARAM.u16, minimum: 1, maximum: MAX_PROMISE_K, description: `Blocks within which inclusion is counted, 1 to ${MAX_PROMISE_K}` },
          kind: { ...PARAM.txn_kind, description: 'Transaction kind (standard, encrypted, high_limit): a price below its minimum gas unit price is never included. Default standard' },
        },
        ['price', 'k'],
      ),
      response: responses(ref('InclusionProbability'), [400, 403, 500, 503]),
    },
    async handler(request: FastifyRequest, reply: FastifyReply) {
      const query = request.query as { price: U64; k: number; kind?: TxnKind }
      const k = checkK(query.k)
      const info = await readLedger(ctx, reply)
      const { probability, samples } = await readEstimators(ctx, info, (view) => view.calibrated.inclusionProbability(query.price, k, query.kind ?? 'standard'))
      reply.header('content-type', JSON_TYPE)
      return stringifyExact({ price: query.price, k, probability, samples })
    },
  }
}
