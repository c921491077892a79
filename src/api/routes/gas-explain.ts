import type { FastifyReply, FastifyRequest } from 'fastify'
import { stringifyExact } from '../../core/wire.js'
import { JSON_TYPE, readEstimators, readLedger, type ApiContext } from '../context.js'
import type { ApiRoute } from '../openapi.js'
import { ref } from '../schema/ref.js'
import { responses } from './responses.js'

/**
 * `GET /v1/gas/explain`: why both estimates are what they are, at the same block: the Aptos
 * estimator's `explain()` and the calibrated one's, u64 as exact JSON integers.
 */
export function gasExplainRoute(ctx: ApiContext): ApiRoute {
  let cached = { revision: -1, body: '' }
  return {
    method: 'GET',
    url: '/gas/explain',
    schema: {
      operationId: 'get_gas_explain',
      summary: 'Explain the gas estimates',
      description:
        'How each estimate was derived at the current block: for the Aptos estimate, each tier’s window, statistic and the block that set it; for the calibrated one, each tier’s promise, level, samples, achieved coverage and driver (the expert of the learner and the chain state that set its price). u64 values are JSON integers, exact for every u64.',
      tags: ['Gas'],
      response: responses(ref('GasExplain'), [400, 403, 500, 503]),
    },
    async handler(_request: FastifyRequest, reply: FastifyReply) {
      const info = await readLedger(ctx, reply)
      const text = await readEstimators(ctx, info, (view) => {
        if (cached.revision !== view.revision) cached = { revision: view.revision, body: stringifyExact({ aptos: view.aptos.explain(), calibrated: view.calibrated.explain() }) }
        return cached.body
      })
      reply.header('content-type', JSON_TYPE)
      return text
    },
  }
}
