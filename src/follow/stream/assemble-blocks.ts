import type { BlockJson, TransactionJson } from '../../ledger/store/types.js'
import { hex, micros } from './convert/hex.js'
import { transactionJson } from './convert/transaction.js'
import type { Transaction } from './gen/aptos/transaction/v1/transaction_pb.js'

interface OpenBlock<T> {
  height: string
  hash: string
  timestamp: string
  first: string
  last: string
  transactions: T[]
}

/** What `BlockAssembler` reads of a transaction. */
export interface TransactionHead {
  version: string
  blockHeight: string
  kind: Transaction['txnData']['case']
  /** A block start's (block metadata, genesis) block hash and timestamp; '' otherwise. */
  blockHash: string
  blockTimestamp: string
}

/** The head of a decoded stream transaction. */
export function transactionHead(tx: Transaction): TransactionHead {
  const d = tx.txnData
  return {
    version: tx.version,
    blockHeight: tx.blockHeight,
    kind: d.case,
    blockHash: d.case === 'blockMetadata' ? d.value.id : d.case === 'genesis' ? hex(tx.info?.hash ?? new Uint8Array()) : '',
    blockTimestamp: d.case === 'blockMetadata' ? micros(tx.timestamp) : d.case === 'genesis' ? '0' : '',
  }
}

/** A block as `BlockAssembler` hands it over: the block JSON's fields with the transactions as its converter made them. */
export interface AssembledBlock<T> extends Omit<BlockJson, 'transactions'> {
  transactions: T[]
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
 * The caller feeds transactions in version order without gaps (the ingest checks that). Each
 * transaction (`S`: the decoder's message by default, whose `TransactionHead` is `head`) is
 * turned into what the blocks carry by `convert`: the node's JSON (`transactionJson`, the
 * default), or its text beside what the writer checks (the ingest's form when the store takes
 * checked blocks).
 */
export class BlockAssembler<T = TransactionJson, S = Transaction> {
  #open: OpenBlock<T> | null = null
  readonly #convert: (tx: S) => T
  readonly #head: (tx: S) => TransactionHead
  /** Transactions passed over before the first block start. */
  skipped = 0

  constructor(convert: (tx: S) => T = transactionJson as unknown as (tx: S) => T, head: (tx: S) => TransactionHead = transactionHead as unknown as (tx: S) => TransactionHead) {
    this.#convert = convert
    this.#head = head
  }

  /** Adds the next transaction; returns the blocks it completed (zero, one, or two when it both closes one and is a whole block). */
  push(tx: S): (T extends TransactionJson ? BlockJson : AssembledBlock<T>)[] {
    const done: AssembledBlock<T>[] = []
    const h = this.#head(tx)
    const kind = h.kind
    if (this.#open !== null && this.#open.height !== h.blockHeight) done.push(this.#close())
    if (kind === 'blockMetadata' || kind === 'genesis') {
      if (this.#open !== null) throw new Error(`version ${h.version}: a second block start inside block ${this.#open.height}`)
      this.#open = {
        height: h.blockHeight,
        hash: h.blockHash,
        timestamp: h.blockTimestamp,
        first: h.version,
        last: h.version,
        transactions: [],
      }
    } else if (this.#open === null) {
      this.skipped++
      return done as never
    }
    const open = this.#open as OpenBlock<T>
    open.transactions.push(this.#convert(tx))
    open.last = h.version
    if (kind === 'stateCheckpoint' || kind === 'blockEpilogue') done.push(this.#close())
    return done as never
  }

  /** First version of the block still open, or `null`. */
  get openFrom(): string | null {
    return this.#open?.first ?? null
  }

  #close(): AssembledBlock<T> {
    const b = this.#open as OpenBlock<T>
    this.#open = null
    return { block_height: b.height, block_hash: b.hash, block_timestamp: b.timestamp, first_version: b.first, last_version: b.last, transactions: b.transactions } as unknown as AssembledBlock<T>
  }
}
