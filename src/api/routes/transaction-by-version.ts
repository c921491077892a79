import type { FastifyReply, FastifyRequest } from 'fastify'
import type { U64 } from '../../core/u64.js'
import { JSON_TYPE, readLedger, type ApiContext } from '../context.js'
import { ApiError } from '../plumbing/errors.js'
import { PARAM } from '../params.js'
import { object, ref } from '../schema/ref.js'
import type { ApiRoute } from '../openapi.js'
import { responses } from './responses.js'

/** `JSON.stringify` of a store's transaction, `null` kept. */
const stringified = (txn: unknown): string | null => (txn === null ? null : JSON.stringify(txn))

/**
 * `GET /v1/transactions/by_version/{txn_version}`: above the ledger version → 404
 * `transaction_not_found`; below the oldest retained version → 410 `version_pruned` (Aptos
 * `get_transaction_by_version_inner`, messages as the node writes them).
 */
export function transactionByVersionRoute(ctx: ApiContext): ApiRoute {
  return {
    method: 'GET',
    url: '/transactions/by_version/:txn_version',
    schema: {
      operationId: 'get_transaction_by_version',
      summary: 'Get transaction by version',
      description: 'Retrieves a committed transaction by its ledger version. If the version has been pruned, a 410 is returned.',
      tags: ['Transactions'],
      params: object({ txn_version: { ...PARAM.u64, description: 'Version of the transaction to retrieve' } }, ['txn_version']),
      response: responses(ref('Transaction'), [400, 403, 404, 410, 500, 503]),
    },
    async handler(request: FastifyRequest, reply: FastifyReply) {
      const version = (request.params as { txn_version: U64 }).txn_version
      const info = await readLedger(ctx, reply)
      if (version > info.ledger_version) throw new ApiError('transaction_not_found', `Transaction not found by Ledger version(${version})`)
      if (version < info.oldest_ledger_version) throw new ApiError('version_pruned', `Ledger version(${version}) has been pruned`)
      // A store that keeps the bytes or the JSON text hands them over as they are sent: no parse
      // and stringify per request.
      const store = ctx.store
      const json =
        store.transactionBytesByVersion !== undefined
          ? await store.transactionBytesByVersion(version)
          : store.transactionJsonByVersion !== undefined
            ? await store.transactionJsonByVersion(version)
            : stringified(await store.transactionByVersion(version))
      if (json === null) throw new ApiError('transaction_not_found', `Transaction not found by Ledger version(${version})`)
      reply.header('content-type', JSON_TYPE)
      return json
    },
  }
}
