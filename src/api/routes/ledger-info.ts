import type { FastifyReply, FastifyRequest } from 'fastify'
import { JSON_TYPE, readLedger, type ApiContext } from '../context.js'
import { ref } from '../schema/ref.js'
import type { ApiRoute } from '../openapi.js'
import { responses } from './responses.js'

/** `GET /v1`: the ledger info as the node's `IndexResponse` (u64 as decimal strings). */
export function ledgerInfoRoute(ctx: ApiContext): ApiRoute {
  return {
    method: 'GET',
    url: '/',
    schema: {
      operationId: 'get_ledger_info',
      summary: 'Get ledger info',
      description: 'The latest ledger information: chain ID, epoch, versions and block heights (current and oldest retained), node role.',
      tags: ['General'],
      response: responses(ref('IndexResponse'), [400, 403, 500, 503]),
    },
    async handler(_request: FastifyRequest, reply: FastifyReply) {
      const info = await readLedger(ctx, reply)
      reply.header('content-type', JSON_TYPE)
      return JSON.stringify({
        chain_id: info.chain_id,
        epoch: String(info.epoch),
        ledger_version: String(info.ledger_version),
        oldest_ledger_version: String(info.oldest_ledger_version),
        ledger_timestamp: String(info.ledger_timestamp_usec),
        node_role: ctx.nodeRole,
        oldest_block_height: String(info.oldest_block_height),
        block_height: String(info.block_height),
        git_hash: ctx.gitHash,
      })
    },
  }
}
