import type { FastifyReply, FastifyRequest } from 'fastify'
import type { PricedBlock } from '../../core/block.js'
import { JSON_TYPE, readEstimators, readLedger, type ApiContext } from '../context.js'
import { ApiError } from '../plumbing/errors.js'
import type { ApiRoute } from '../openapi.js'
import { PARAM } from '../params.js'
import { object, ref } from '../schema/ref.js'
import { responses } from './responses.js'

/** Blocks of history when `blocks` is omitted. */
export const DEFAULT_HISTORY_BLOCKS = 100

/** A block of the fee history as `GasHistoryBlock`: u64 as decimal strings, like `Block`. */
function historyBlock(b: PricedBlock) {
  return {
    block_height: String(b.block_height),
    epoch: String(b.epoch),
    user_txns: b.user_txns,
    gas_used: String(b.gas_used),
    full: b.full,
    reason: b.reason,
    cheapest_gas_unit_price: b.cheapest_gas_unit_price === null ? null : String(b.cheapest_gas_unit_price),
    min_inclusion_price: String(b.min_inclusion_price),
  }
}

/**
 * `GET /v1/gas/history?blocks=N`: the newest N blocks the estimators hold, as the engine priced
 * them, newest last. N defaults to 100 and is clamped to the calibrated window; `blocks=0` is
 * 400 `invalid_input`, as `limit=0` is.
 */
export function gasHistoryRoute(ctx: ApiContext): ApiRoute {
  return {
    method: 'GET',
    url: '/gas/history',
    schema: {
      operationId: 'get_gas_history',
      summary: 'Fee history',
      description:
        'Per-block fee history, oldest first and newest last: user transactions, gas used, whether the block was full and why, its cheapest gas unit price and the least price it let in (min_inclusion_price). At most the calibrated window of blocks; blocks the store lacks or the engine could not read are absent.',
      tags: ['Gas'],
      querystring: object({ blocks: { ...PARAM.u16, minimum: 1, description: `Number of newest blocks; omitted → ${DEFAULT_HISTORY_BLOCKS}, at most the calibrated window` } }),
      response: responses({ type: 'array', items: ref('GasHistoryBlock') }, [400, 403, 500, 503]),
    },
    async handler(request: FastifyRequest, reply: FastifyReply) {
      const blocks = (request.query as { blocks?: number }).blocks ?? DEFAULT_HISTORY_BLOCKS
      if (blocks === 0) throw new ApiError('invalid_input', 'Given blocks value (0) must not be zero')
      const info = await readLedger(ctx, reply)
      const history = await readEstimators(ctx, info, (view) => view.calibrated.history(blocks).map(historyBlock))
      reply.header('content-type', JSON_TYPE)
      return JSON.stringify(history)
    },
  }
}
