import { addU64, type U64 } from '../core/u64.js'
import { parseAddress } from './address.js'
import { prepareAppend, type LedgerTip } from './append-rules.js'
import { checkLimitOption, DEFAULT_MAX_BLOCK_TRANSACTIONS } from './limits.js'
import { loadJsonLines, type LoadOptions } from './load.js'
import type { LedgerInfo, LedgerStore } from './store.js'
import type { BlockJson, TransactionJson, UserTransactionJson } from './types.js'
import { u64Distance } from '../core/u64.js'

/** Options of a ledger store. */
export interface StoreOptions {
  /** Chain id reported in the ledger info; default 4 (the id of a local testnet). */
  chainId?: number
  /** Most transactions a block may carry to be appended (default `DEFAULT_MAX_BLOCK_TRANSACTIONS`, 20,000). */
  maxBlockTransactions?: number
}

/** Default chain id: 4, what a local Aptos testnet reports. */
export const DEFAULT_CHAIN_ID = 4

interface BlockRecord {
  block_height: U64
  block_hash: string
  block_timestamp: U64
  first_version: U64
  last_version: U64
  epoch: U64
}

/**
 * An account's sequence-number transactions. Invariant: `txns[i]` has sequence number
 * `firstSeq + i`, and `txns[0..head)` have been pruned.
 */
interface AccountRecord {
  txns: TransactionJson[]
  head: number
  firstSeq: U64
  next: U64
}

/** Below this many dead slots at the front, a queue is not compacted (keeps pruning amortised O(1)). */
const COMPACT_MIN = 1024

/**
 * The in-memory ledger: the embedded default, loaded from JSON Lines. Every read is O(1) apart
 * from copying out the page asked for.
 *
 * Blocks and transactions sit in arrays in height/version order, so a height or version is an
 * offset from the oldest retained one; pruning advances a head index and compacts when half the
 * array is dead. The store keeps the appended objects and hands them out: treat them as
 * read-only.
 *
 * @example
 * const store = await MemoryStore.fromJsonLines('data/chain.jsonl')
 * store.transactionByVersion(42)
 */
export class MemoryStore implements LedgerStore {
  readonly chainId: number
  readonly maxBlockTransactions: number
  #blocks: BlockRecord[] = []
  #blockHead = 0
  #txns: TransactionJson[] = []
  #txnHead = 0
  #accounts = new Map<string, AccountRecord>()

  constructor(options: StoreOptions = {}) {
    this.chainId = options.chainId ?? DEFAULT_CHAIN_ID
    this.maxBlockTransactions = checkLimitOption('maxBlockTransactions', options.maxBlockTransactions ?? DEFAULT_MAX_BLOCK_TRANSACTIONS)
  }

  /** A store holding every block of a JSON Lines chain file (`-` is standard input). */
  static async fromJsonLines(source: string, options: StoreOptions & LoadOptions = {}): Promise<MemoryStore> {
    const store = new MemoryStore(options)
    await loadJsonLines(source, store, options)
    return store
  }

  ledgerInfo(): LedgerInfo | null {
    const newest = this.#blocks[this.#blocks.length - 1]
    const oldest = this.#blocks[this.#blockHead]
    if (newest === undefined || oldest === undefined) return null
    return {
      chain_id: this.chainId,
      epoch: newest.epoch,
      ledger_version: newest.last_version,
      oldest_ledger_version: oldest.first_version,
      ledger_timestamp_usec: newest.block_timestamp,
      block_height: newest.block_height,
      oldest_block_height: oldest.block_height,
    }
  }

  transactionByVersion(version: U64): TransactionJson | null {
    const oldest = this.#blocks[this.#blockHead]
    if (oldest === undefined) return null
    const offset = u64Distance(oldest.first_version, version)
    if (!(offset >= 0 && offset < this.#txns.length - this.#txnHead)) return null
    return this.#txns[this.#txnHead + offset] ?? null
  }

  accountTransactions(address: string, start: U64, limit: number): TransactionJson[] {
    const account = this.#accounts.get(address)
    if (account === undefined) return []
    const from = u64Distance(account.firstSeq, start)
    const begin = Math.max(from, account.head)
    const end = Math.min(from + limit, account.txns.length)
    return begin < end ? account.txns.slice(begin, end) : []
  }

  accountSequenceNumber(address: string): U64 {
    return this.#accounts.get(address)?.next ?? 0
  }

  blockByHeight(height: U64, withTransactions: boolean): BlockJson | null {
    const oldest = this.#blocks[this.#blockHead]
    if (oldest === undefined) return null
    const offset = u64Distance(oldest.block_height, height)
    if (!(offset >= 0 && offset < this.#blocks.length - this.#blockHead)) return null
    const b = this.#blocks[this.#blockHead + offset] as BlockRecord
    const header = {
      block_height: String(b.block_height),
      block_hash: b.block_hash,
      block_timestamp: String(b.block_timestamp),
      first_version: String(b.first_version),
      last_version: String(b.last_version),
    }
    // The node omits `transactions` when with_transactions=false; BlockJson types it as required.
    if (!withTransactions) return header as BlockJson
    const begin = this.#txnHead + u64Distance(oldest.first_version, b.first_version)
    return { ...header, transactions: this.#txns.slice(begin, begin + u64Distance(b.first_version, b.last_version) + 1) }
  }

  /**
   * Appends the next block after checking every append rule (see `prepareAppend`); nothing
   * changes when it throws.
   */
  appendBlock(block: BlockJson): void {
    const newest = this.#blocks[this.#blocks.length - 1]
    const tip: LedgerTip | null = newest ?? null
    const prepared = prepareAppend(block, tip, (address) => this.#accounts.get(address)?.next, this.maxBlockTransactions)
    const { parsed } = prepared
    // Everything below only pushes; nothing can throw half-way.
    this.#blocks.push({
      block_height: parsed.block_height,
      block_hash: prepared.block_hash,
      block_timestamp: prepared.block_timestamp,
      first_version: parsed.first_version,
      last_version: parsed.last_version,
      epoch: parsed.epoch,
    })
    for (const txn of prepared.transactions) this.#txns.push(txn)
    for (const e of prepared.entries) {
      const txn = prepared.transactions[e.index] as TransactionJson
      const account = this.#accounts.get(e.address)
      if (account === undefined) this.#accounts.set(e.address, { txns: [txn], head: 0, firstSeq: e.sequence_number, next: 0 })
      else account.txns.push(txn)
    }
    for (const [address, next] of prepared.nextSequenceNumbers) (this.#accounts.get(address) as AccountRecord).next = next
  }

  /**
   * Drops whole blocks whose `last_version` is below `version`, oldest first. The newest block is
   * always kept, so the ledger info and the continuity rule survive any prune. O(pruned txns).
   */
  pruneBelow(version: U64): void {
    const last = this.#blocks.length - 1
    while (this.#blockHead < last) {
      const b = this.#blocks[this.#blockHead] as BlockRecord
      if (!(b.last_version < version)) break
      const count = u64Distance(b.first_version, b.last_version) + 1
      for (let i = 0; i < count; i++) {
        const txn = this.#txns[this.#txnHead + i] as TransactionJson
        if (txn.type !== 'user_transaction' || isOrderless(txn)) continue
        // Accounts' lists are in version order, so the pruned txn is the front of its list.
        const account = this.#accounts.get(parseAddress(txn.sender) as string) as AccountRecord
        account.head++
        if (account.head >= COMPACT_MIN && account.head * 2 > account.txns.length) {
          account.txns.splice(0, account.head)
          account.firstSeq = addU64(account.firstSeq, account.head) as U64
          account.head = 0
        }
      }
      this.#txnHead += count
      this.#blockHead++
    }
    if (this.#blockHead >= COMPACT_MIN && this.#blockHead * 2 > this.#blocks.length) {
      this.#blocks.splice(0, this.#blockHead)
      this.#blockHead = 0
    }
    if (this.#txnHead >= COMPACT_MIN && this.#txnHead * 2 > this.#txns.length) {
      this.#txns.splice(0, this.#txnHead)
      this.#txnHead = 0
    }
  }

  close(): void {}
}

function isOrderless(txn: UserTransactionJson): boolean {
  return txn.replay_protection_nonce !== undefined && txn.replay_protection_nonce !== null
}
