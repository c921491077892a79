import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CalibratedTier } from '../../core/calibrated/calibrated-estimator.js'
import { kindFloor, type TxnKind } from '../../core/txn-kind.js'
import type { U64 } from '../../core/u64.js'
import { stringifyExact } from '../../core/wire.js'
import { JSON_TYPE, readEstimators, readLedger, type ApiContext } from '../context.js'
import type { FeedView } from '../../service/estimate-feed.js'
import type { ApiRoute } from '../openapi.js'
import { PARAM } from '../params.js'
import { object, ref } from '../schema/ref.js'
import { responses } from './responses.js'

function quote(t: CalibratedTier, floor: U64) {
  // a kind's floor raises the price; the tier's promise and coverage are those of the standard tier it was raised from
  return { price: t.price < floor ? floor : t.price, promise: { k: t.promise.k, q: t.promise.q }, coverage: t.coverage, floor_bound: t.floor_bound }
}

/** The `CalibratedGasEstimate` body of the calibrated estimator's current state, for transactions of `kind`. */
function body(view: FeedView, kind: TxnKind): string {
  const e = view.calibrated
  const newest = e.newest
  const floor = kindFloor(e.config, kind)
  const [deprioritized, regular, prioritized] = e.tiers()
  return stringifyExact({
    as_of: newest === undefined ? null : { block_height: newest.block_height, epoch: newest.epoch },
    deprioritized: quote(deprioritized, floor),
    regular: quote(regular, floor),
    prioritized: quote(prioritized, floor),
  })
}

/**
 * `GET /v1/gas/estimate`: the calibrated tiers (price, promise, achieved coverage, floor-bound)
 * at the store's current height, whichever estimator `/v1/estimate_gas_price` serves. The body
 * is built once per change of the estimators.
 */
export function gasEstimateRoute(ctx: ApiContext): ApiRoute {
  let cached = { revision: -1, body: '' }
  return {
    method: 'GET',
    url: '/gas/estimate',
    schema: {
      operationId: 'get_gas_estimate',
      summary: 'Calibrated gas estimate',
      description:
        'The calibrated estimate: each tier (deprioritized, regular, prioritized) promises inclusion within k blocks with probability at least q, learns online from block data to keep that promise (adaptive conformal inference), and reports how the promise has held so far. Prices are JSON integers, exact for every u64.',
      tags: ['Gas'],
      querystring: object({ kind: { ...PARAM.txn_kind, description: 'Transaction kind (standard, encrypted, high_limit): every tier is at least its minimum gas unit price. Default standard' } }, []),
      response: responses(ref('CalibratedGasEstimate'), [400, 403, 500, 503]),
    },
    async handler(request: FastifyRequest, reply: FastifyReply) {
      const kind = (request.query as { kind?: TxnKind }).kind ?? 'standard'
      const info = await readLedger(ctx, reply)
      const text = await readEstimators(ctx, info, (view) => {
        if (kind !== 'standard') return body(view, kind)
        if (cached.revision !== view.revision) cached = { revision: view.revision, body: body(view, 'standard') }
        return cached.body
      })
      reply.header('content-type', JSON_TYPE)
      return text
    },
  }
}
