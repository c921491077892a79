import { fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf'
import type { BlockJson } from '../../ledger/store/types.js'
import { transactionProtoJson } from './convert/to-proto.js'
import { TransactionSchema } from './gen/aptos/transaction/v1/transaction_pb.js'

/** A chain as a stream server holds it: each transaction's `aptos.transaction.v1.Transaction` wire bytes, in version order. */
export interface EncodedChain {
  /** Version of `transactions[0]`. */
  firstVersion: bigint
  transactions: Uint8Array[]
  /** Index in `transactions` of each block's first transaction, ascending. */
  blockStarts: number[]
}

/**
 * Blocks in the node's JSON (a chain file's lines) as the Transaction Stream would send their
 * transactions: `block_height` on each, `epoch` from the block's metadata transaction.
 */
export function encodeChain(blocks: Iterable<BlockJson>): EncodedChain {
  const transactions: Uint8Array[] = []
  const blockStarts: number[] = []
  let firstVersion: bigint | undefined
  let epoch = '0'
  for (const b of blocks) {
    firstVersion ??= BigInt(b.first_version)
    blockStarts.push(transactions.length)
    for (const t of b.transactions) {
      const txn = t as unknown as Record<string, unknown>
      if (typeof txn.epoch === 'string') epoch = txn.epoch
      const message = fromJson(TransactionSchema, transactionProtoJson(txn, { block_height: String(b.block_height), epoch }) as JsonValue)
      transactions.push(toBinary(TransactionSchema, message))
    }
  }
  return { firstVersion: firstVersion ?? 0n, transactions, blockStarts }
}
