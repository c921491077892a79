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
import type { LedgerInfo } from '../../ledger/store/store.js'
import { responses } from './responses.js'

/** `seq - limit`, saturating at 0: where a page of the latest `limit` transactions starts. */
function latestPageStart(seq: U64, limit: number): U64 {
  const s = u64ToBigInt(seq) - BigInt(limit)
  return s > 0n ? toU64(s) : 0
}

/**
 * The 410 of a page asked from `start` whose first transaction is not `start`'s
 * (`startsAtStart` false), or that is empty (`undefined`) while `start` precedes the account's
 * next sequence number: sequence numbers of an account's committed txns have no gaps, so such a
 * missing `start` was committed and then pruned.
 */
async function checkNotPruned(ctx: ApiContext, address: string, start: U64, startsAtStart: boolean | undefined, info: LedgerInfo): Promise<void> {
  const pruned = startsAtStart === undefined ? start < (await ctx.store.accountSequenceNumber(address)) : !startsAtStart
  if (pruned) {
    throw new ApiError(
      'version_pruned',
      `Transaction with sequence number ${start} of account ${toShortAddress(address)} has been pruned (oldest ledger version ${info.oldest_ledger_version})`,
    )
  }
}

/**
 * Once the socket has taken a page's bytes ('finish'), the store may write its buffer again; an
 * aborted answer never gives it back, which costs only the reuse.
 */
function releaseOnFinish(ctx: ApiContext, reply: FastifyReply, body: Uint8Array): void {
  const store = ctx.store
  if (store.releaseBytes !== undefined) reply.raw.once('finish', () => store.releaseBytes?.(body))
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
      // The latest page from a store that finds its start in the same read (no pruned check: no start was asked).
      if (query.start === undefined && ctx.store.latestAccountTransactionsBytes !== undefined) {
        const { body } = await ctx.store.latestAccountTransactionsBytes(address, limit)
        releaseOnFinish(ctx, reply, body)
        reply.header('content-type', JSON_TYPE)
        return body
      }
      const start = query.start ?? latestPageStart(await ctx.store.accountSequenceNumber(address), limit)
      // A store that keeps the bytes hands over the page's body as it is sent, with its first
      // sequence number for the pruned check; one that keeps the JSON texts hands them over with
      // no parse and stringify per item (only the first is parsed, when the pruned check needs it).
      if (ctx.store.accountTransactionsBytes !== undefined) {
        const { body, count, firstSequenceNumber } = await ctx.store.accountTransactionsBytes(address, start, limit)
        releaseOnFinish(ctx, reply, body)
        if (query.start !== undefined) await checkNotPruned(ctx, address, start, count === 0 ? undefined : firstSequenceNumber === start, info)
        reply.header('content-type', JSON_TYPE)
        return body
      }
      const texts = ctx.store.accountTransactionsJson !== undefined ? await ctx.store.accountTransactionsJson(address, start, limit) : null
      const txns = texts === null ? await ctx.store.accountTransactions(address, start, limit) : null
      if (query.start !== undefined) {
        const first: TransactionJson | undefined = texts === null ? txns?.[0] : texts[0] === undefined ? undefined : (JSON.parse(texts[0]) as TransactionJson)
        await checkNotPruned(ctx, address, start, first === undefined ? undefined : first.type !== 'user_transaction' || parseU64(first.sequence_number) === start, info)
      }
      reply.header('content-type', JSON_TYPE)
      return texts === null ? JSON.stringify(txns) : `[${texts.join(',')}]`
    },
  }
}
