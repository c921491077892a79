import type { BlockJson, TransactionJson } from '../../ledger/store/types.js'
import { hex, micros } from './convert/hex.js'
import { transactionJson } from './convert/transaction.js'
import type { Transaction } from './gen/aptos/transaction/v1/transaction_pb.js'

interface OpenBlock {
  height: string
  hash: string
  timestamp: string
  first: string
  last: string
  transactions: TransactionJson[]
}

/**
 * Whole blocks from the stream's transactions, which carry no block message: a block runs from
 * its block-metadata (or genesis) transaction to its state-checkpoint or block-epilogue
 * transaction, or up to the next transaction of another `block_height` (the genesis block, and
 * chains from before block epilogues and checkpoints ended every block). Its hash is the
 * block-metadata `id`, its timestamp the block-metadata's. A block may span responses and the
 * assembler keeps it open across them; transactions before the first block start (a stream
 * that starts mid-block) are passed over and counted in `skipped`.
 *
 * The caller feeds transactions in version order without gaps (the ingest checks that).
 */
export class BlockAssembler {
  #open: OpenBlock | null = null
  /** Transactions passed over before the first block start. */
  skipped = 0

  /** Adds the next transaction; returns the blocks it completed (zero, one, or two when it both closes one and is a whole block). */
  push(tx: Transaction): BlockJson[] {
    const done: BlockJson[] = []
    const kind = tx.txnData.case
    if (this.#open !== null && this.#open.height !== tx.blockHeight) done.push(this.#close())
    if (kind === 'blockMetadata' || kind === 'genesis') {
      if (this.#open !== null) throw new Error(`version ${tx.version}: a second block start inside block ${this.#open.height}`)
      this.#open = {
        height: tx.blockHeight,
        hash: kind === 'blockMetadata' ? tx.txnData.value.id : hex(tx.info?.hash ?? new Uint8Array()),
        timestamp: kind === 'blockMetadata' ? micros(tx.timestamp) : '0',
        first: tx.version,
        last: tx.version,
        transactions: [],
      }
    } else if (this.#open === null) {
      this.skipped++
      return done
    }
    const open = this.#open as OpenBlock
    open.transactions.push(transactionJson(tx))
    open.last = tx.version
    if (kind === 'stateCheckpoint' || kind === 'blockEpilogue') done.push(this.#close())
    return done
  }

  /** First version of the block still open, or `null`. */
  get openFrom(): string | null {
    return this.#open?.first ?? null
  }

  #close(): BlockJson {
    const b = this.#open as OpenBlock
    this.#open = null
    return { block_height: b.height, block_hash: b.hash, block_timestamp: b.timestamp, first_version: b.first, last_version: b.last, transactions: b.transactions } as BlockJson
  }
}
