import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseU64, toU64, u64ToBigInt, type U64 } from '../../core/u64.js'
import { toShortAddress } from '../../ledger/store/address.js'
import { JSON_TYPE, readLedger, type ApiContext } from '../context.js'
import { ApiError } from '../plumbing/errors.js'
import { pageLimit } from '../page.js'
import { PARAM } from '../params.js'
import { object, ref } from '../schema/ref.js'
import type { ApiRoute } from '../openapi.js'
import type { TransactionJson } from '../../ledger/store/types.js'
import { responses } from './responses.js'

/** `seq - limit`, saturating at 0: where a page of the latest `limit` transactions starts. */
function latestPageStart(seq: U64, limit: number): U64 {
  const s = u64ToBigInt(seq) - BigInt(limit)
  return s > 0n ? toU64(s) : 0
}

/**
 * `GET /v1/accounts/{address}/transactions?start&limit`: committed sequence-number transactions
 * sent by the account, ascending. No `start` → the latest `limit` (Aptos: account sequence number
 * minus limit, saturating). `start` naming a transaction that was pruned → 410 `version_pruned`
 * (the spec's rule). Unknown account or `start` past the end → `[]`; the node checks no existence.
 */
export function accountTransactionsRoute(ctx: ApiContext): ApiRoute {
  return {
    method: 'GET',
    url: '/accounts/:address/transactions',
    schema: {
      operationId: 'get_account_transactions',
      summary: 'Get account transactions',
      description:
        'Retrieves on-chain committed sequence-number based transactions sent from an account, ascending by sequence number. Orderless transactions are not returned. If no start is given, the latest transactions are returned. If start is too far in the past (pruned), a 410 is returned.',
      tags: ['Transactions'],
      params: object({ address: { ...PARAM.address, description: 'Address of account with or without a 0x prefix' } }, ['address']),
      querystring: object({
        start: { ...PARAM.u64, description: 'Account sequence number to start the list at; omitted → the latest transactions' },
        limit: { ...PARAM.u16, description: `Maximum number of transactions to return; omitted → ${ctx.defaultPageSize}, at most ${ctx.maxPageSize}` },
      }),
      response: responses({ type: 'array', items: ref('Transaction') }, [400, 403, 404, 410, 500, 503]),
    },
    async handler(request: FastifyRequest, reply: FastifyReply) {
      const { address } = request.params as { address: string }
      const query = request.query as { start?: U64; limit?: number }
      const info = await readLedger(ctx, reply)
      const limit = pageLimit(query.limit, ctx.defaultPageSize, ctx.maxPageSize)
      const start = query.start ?? latestPageStart(await ctx.store.accountSequenceNumber(address), limit)
      // A store that keeps the JSON texts hands them over as they are: no parse and stringify per
      // item; only the first is parsed, when the pruned check needs it.
      const texts = ctx.store.accountTransactionsJson !== undefined ? await ctx.store.accountTransactionsJson(address, start, limit) : null
      const txns = texts === null ? await ctx.store.accountTransactions(address, start, limit) : null
      if (query.start !== undefined) {
        // Sequence numbers of an account's committed txns have no gaps, so a missing `start` that
        // precedes the account's next sequence number was committed and then pruned.
        const first: TransactionJson | undefined = texts === null ? txns?.[0] : texts[0] === undefined ? undefined : (JSON.parse(texts[0]) as TransactionJson)
        const pruned =
          first === undefined
            ? start < (await ctx.store.accountSequenceNumber(address))
            : first.type === 'user_transaction' && parseU64(first.sequence_number) !== start
        if (pruned) {
          throw new ApiError(
            'version_pruned',
            `Transaction with sequence number ${start} of account ${toShortAddress(address)} has been pruned (oldest ledger version ${info.oldest_ledger_version})`,
          )
        }
      }
      reply.header('content-type', JSON_TYPE)
      return texts === null ? JSON.stringify(txns) : `[${texts.join(',')}]`
    },
  }
}
