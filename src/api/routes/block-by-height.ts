import type { FastifyReply, FastifyRequest } from 'fastify'
import type { U64 } from '../../core/u64.js'
import { JSON_TYPE, readLedger, type ApiContext } from '../context.js'
import { ApiError } from '../plumbing/errors.js'
import { PARAM } from '../params.js'
import { object, ref } from '../schema/ref.js'
import type { ApiRoute } from '../openapi.js'
import { responses } from './responses.js'

/**
 * `GET /v1/blocks/by_height/{block_height}?with_transactions=`: the block JSON the engine
 * ingests, so a client can follow this server. Above the current height → 404
 * `block_not_found`; below the oldest retained → 410 `block_pruned` (Aptos
 * `Context::get_block_by_height`). Without transactions the node writes `"transactions": null`.
 */
export function blockByHeightRoute(ctx: ApiContext): ApiRoute {
  return {
    method: 'GET',
    url: '/blocks/by_height/:block_height',
    schema: {
      operationId: 'get_block_by_height',
      summary: 'Get blocks by height',
      description: 'The block at a height, with its transactions when with_transactions=true.',
      tags: ['Blocks'],
      params: object({ block_height: { ...PARAM.u64, description: 'Block height to look up' } }, ['block_height']),
      querystring: object({ with_transactions: { ...PARAM.boolean, description: 'Include the block’s transactions; default false' } }),
      response: responses(ref('Block'), [400, 403, 404, 410, 500, 503]),
    },
    async handler(request: FastifyRequest, reply: FastifyReply) {
      const height = (request.params as { block_height: U64 }).block_height
      const withTransactions = (request.query as { with_transactions?: boolean }).with_transactions ?? false
      const info = await readLedger(ctx, reply)
      if (height > info.block_height) throw new ApiError('block_not_found', `Block not found by Block height(${height})`)
      if (height < info.oldest_block_height) throw new ApiError('block_pruned', `Block(${height}) has been pruned`)
      const store = ctx.store
      if (store.blockBytesByHeight !== undefined) {
        // A store that keeps the bytes hands over the body as it is sent: no parse and stringify
        // of every transaction per request (what a follower polling this server asks for).
        const bytes = await store.blockBytesByHeight(height, withTransactions)
        if (bytes === null) throw new ApiError('block_not_found', `Block not found by Block height(${height})`)
        const body = bytes.body
        // Once the socket has taken the body, the store may write its buffer again (as for account pages).
        if (store.releaseBytes !== undefined) reply.raw.once('finish', () => store.releaseBytes?.(body))
        reply.header('content-type', JSON_TYPE)
        return body
      }
      const block = await store.blockByHeight(height, withTransactions)
      if (block === null) throw new ApiError('block_not_found', `Block not found by Block height(${height})`)
      reply.header('content-type', JSON_TYPE)
      return JSON.stringify({
        block_height: block.block_height,
        block_hash: block.block_hash,
        block_timestamp: block.block_timestamp,
        first_version: block.first_version,
        last_version: block.last_version,
        transactions: withTransactions ? block.transactions : null,
      })
    },
  }
}
