import type { FastifyReply, FastifyRequest } from 'fastify'
import { u64ToBigInt } from '../../core/u64.js'
import { acceptTypeOf } from '../plumbing/accept.js'
import { BCS_TYPE, stringStructToBcs } from '../bcs.js'
import { JSON_TYPE, readLedger, type ApiContext } from '../context.js'
import { ApiError } from '../plumbing/errors.js'
import type { ApiRoute } from '../openapi.js'
import { PARAM } from '../params.js'
import { object, ref } from '../schema/ref.js'
import { responses } from './responses.js'

/** The node's `HealthCheckSuccess` message. */
export const HEALTHY_MESSAGE = 'aptos-node:ok'
const JSON_BODY = JSON.stringify({ message: HEALTHY_MESSAGE })
const BCS_BODY = stringStructToBcs(HEALTHY_MESSAGE)

/**
 * `GET /v1/-/healthy?duration_secs=N`, as the Aptos node answers it (api/src/basic.rs): 200
 * `{"message":"aptos-node:ok"}` when the ledger can be read and, with `duration_secs`, its
 * newest block's timestamp is at most N seconds behind the server's clock; older → 503
 * `health_check_failed`. An empty or unreadable ledger is 503 as on every route. For load
 * balancers: `duration_secs` tells a stalled ingest from a live one. A server fed by a follower
 * (`ServerOptions.readiness`) also answers 503 `health_check_failed`, naming the reason, while the
 * follower has delivered nothing to an empty ledger or is failing.
 */
export function healthyRoute(ctx: ApiContext): ApiRoute {
  return {
    method: 'GET',
    url: '/-/healthy',
    config: { produces: 'json+bcs' },
    schema: {
      operationId: 'healthy',
      summary: 'Check basic node health',
      description:
        'By default this endpoint just checks that it can get the latest ledger info and then returns 200. If duration_secs is provided, the newest block must also be at most that many seconds old by the server clock; otherwise 503 health_check_failed.',
      tags: ['General'],
      querystring: object({ duration_secs: { ...PARAM.u32, description: 'Largest age (s) of the newest block for the node to count as healthy' } }),
      response: responses(ref('HealthCheckSuccess'), [400, 403, 500, 503]),
    },
    async handler(request: FastifyRequest, reply: FastifyReply) {
      const notReady = ctx.readiness?.reason
      if (notReady !== undefined) throw new ApiError('health_check_failed', `Not ready: ${notReady}`)
      const info = await readLedger(ctx, reply)
      const secs = (request.query as { duration_secs?: number }).duration_secs
      if (secs !== undefined) {
        const ledgerUs = u64ToBigInt(info.ledger_timestamp_usec)
        // Like the node: now − N saturates at 0, and the ledger may be ahead of the clock.
        const nowUs = BigInt(Math.floor(ctx.clock() * 1000))
        const threshold = nowUs - BigInt(secs) * 1_000_000n
        if (ledgerUs < threshold) {
          const age = Number(nowUs - ledgerUs) / 1e6
          throw new ApiError('health_check_failed', `The latest ledger info timestamp is ${ledgerUs} µs, ${age.toFixed(3)} s old, which is beyond the allowed skew (${secs}s).`)
        }
      }
      if (acceptTypeOf(request.headers.accept) === 'bcs') {
        reply.header('content-type', BCS_TYPE)
        return BCS_BODY
      }
      reply.header('content-type', JSON_TYPE)
      return JSON_BODY
    },
  }
}
