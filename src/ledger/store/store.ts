import { parseU64, type U64 } from '../../core/u64.js'
import type { CheckedBlock } from './append-rules.js'
import type { ParsedBlock } from './parse-block.js'
import type { BlockJson, TransactionJson } from './types.js'

/** A value, or a promise of it: in-process stores answer synchronously, remote ones need not. */
export type MaybePromise<T> = T | Promise<T>

/** What the ledger headers report (spec §2.7). */
export interface LedgerInfo {
  chain_id: number
  epoch: U64
  /** Version of the newest committed transaction. */
  ledger_version: U64
  /** Oldest version not pruned (first version of the oldest retained block). */
  oldest_ledger_version: U64
  /** Chain timestamp (µs) of the newest block. */
  ledger_timestamp_usec: U64
  /** Height of the newest block. */
  block_height: U64
  /** Height of the oldest retained block. */
  oldest_block_height: U64
}

/**
 * An account's page of transactions as the bytes the API sends (`accountTransactionsBytes`).
 * The account index holds only the user transactions of that sender, with consecutive sequence
 * numbers, by the append rules checked when each was stored: so `count` and
 * `firstSequenceNumber` say all a reader needs, and the body is not read again.
 */
export interface TransactionPageBytes {
  /** UTF-8 of `JSON.stringify(accountTransactions(…))`: `[`, each transaction's JSON joined by `,`, `]`. */
  body: Uint8Array
  /** Transactions in the page. */
  count: number
  /** Sequence number of the page's first transaction; `null` when the page is empty. */
  firstSequenceNumber: U64 | null
}

/**
 * A block as the bytes `GET /v1/blocks/by_height/{h}` sends (`blockBytesByHeight`), with what the
 * API checks of it without reading it: that the body holds a whole block, one transaction per
 * version of `firstVersion..lastVersion`. Each transaction's version was checked by the append
 * rules when it was stored, so the count is all a reader needs.
 */
export interface BlockBytes {
  /** UTF-8 of `blockJsonHead(header)`, then the transactions' JSON as an array (or `null` when not asked), then `}`. */
  body: Uint8Array
  /** The block's first and last version, as in its header. */
  firstVersion: U64
  lastVersion: U64
  /** Transactions written in `body`: 0 without them. */
  count: number
}

/**
 * The start of a block's body as the API sends it, up to its transactions: `JSON.stringify` of
 * `{ block_height, block_hash, block_timestamp, first_version, last_version, transactions }`
 * with the text of `transactions` and the closing `}` left to the caller (the node's key order;
 * `"transactions":null` when they are not asked for).
 */
export function blockJsonHead(header: Omit<BlockJson, 'transactions'>): string {
  const s = JSON.stringify
  return `{"block_height":${s(header.block_height)},"block_hash":${s(header.block_hash)},"block_timestamp":${s(header.block_timestamp)},"first_version":${s(header.first_version)},"last_version":${s(header.last_version)},"transactions":`
}

/**
 * One height as `parsedBlocks` answers it: the block parsed (`parseBlockJson`), or its JSON as
 * `blockByHeight(h, true)` gives it when parsing throws (the reader parses it again and reports
 * why, as for a block read alone), or `null` when the store does not hold that height.
 */
export type RangeBlock = ParsedBlock | BlockJson | null

/**
 * A ledger of committed blocks. Reads never see a partly appended block. Addresses are in the
 * canonical long form (`0x` + 64 lowercase hex digits).
 */
export interface LedgerStore {
  /** Ledger info, or `null` while the store holds no block. */
  ledgerInfo(): MaybePromise<LedgerInfo | null>
  /** The committed transaction at `version`, or `null` if not retained / not yet committed. */
  transactionByVersion(version: U64): MaybePromise<TransactionJson | null>
  /**
   * Committed sequence-number transactions sent by `address` with sequence numbers in
   * `[start, start + limit)`, ascending; orderless transactions are never included.
   */
  accountTransactions(address: string, start: U64, limit: number): MaybePromise<TransactionJson[]>
  /**
   * Optional: `JSON.stringify(transactionByVersion(version))` (or `null`) as the store can write
   * it without building the object — the text the API sends. Same key order and escapes.
   */
  transactionJsonByVersion?(version: U64): MaybePromise<string | null>
  /** Optional: `accountTransactions(…)` with each transaction as `JSON.stringify` writes it (see `transactionJsonByVersion`). */
  accountTransactionsJson?(address: string, start: U64, limit: number): MaybePromise<string[]>
  /**
   * Optional: the UTF-8 bytes of `transactionJsonByVersion(version)` (or `null`), what the API
   * writes to the socket as they are. The append rules checked the transaction's version when it
   * was stored, so a reader trusts it (the API checks only that it is one JSON object).
   */
  transactionBytesByVersion?(version: U64): MaybePromise<Uint8Array | null>
  /** Optional: `JSON.stringify(accountTransactions(…))` as UTF-8 bytes, with what the API needs to know of the page without reading it. */
  accountTransactionsBytes?(address: string, start: U64, limit: number): MaybePromise<TransactionPageBytes>
  /**
   * Optional: `accountTransactionsBytes` of the account's latest `limit` transactions (from its
   * next sequence number minus `limit`, saturating at 0), in one read: for a store where reading
   * the next sequence number on its own costs a read of its own.
   */
  latestAccountTransactionsBytes?(address: string, limit: number): MaybePromise<TransactionPageBytes>
  /**
   * Optional: the caller of `accountTransactionsBytes` or `blockBytesByHeight` is done with the `body` it returned (the
   * API: the socket has taken it), so the store may write over its buffer for a later page
   * rather than allocate one. A body not given back is collected as any.
   */
  releaseBytes?(body: Uint8Array): void
  /** Next sequence number of `address` (count of its committed sequence-number txns); 0 if unknown. */
  accountSequenceNumber(address: string): MaybePromise<U64>
  /** The block at `height` with or without its transactions, or `null` if not retained. */
  blockByHeight(height: U64, withTransactions: boolean): MaybePromise<BlockJson | null>
  /**
   * Optional: the UTF-8 bytes of the API's body for `blockByHeight(height, withTransactions)`
   * (or `null`): `JSON.stringify` of its header and transactions (`null` without them) in the
   * node's key order, written without building the objects (`BlockBytes`). A body may be given
   * back with `releaseBytes`.
   */
  blockBytesByHeight?(height: U64, withTransactions: boolean): MaybePromise<BlockBytes | null>
  /**
   * Optional: `parseBlockJson(blockByHeight(height, true))` when the store still holds it from
   * the checks of its append (a memory store keeps its newest blocks' so), else `undefined`,
   * and the reader parses `blockByHeight`'s answer. The estimate feed's catch-up reads blocks
   * this way, so the blocks a loaded chain file was just checked with are not unpacked and
   * parsed again before the first estimate.
   */
  parsedBlockByHeight?(height: U64): MaybePromise<ParsedBlock | undefined>
  /**
   * Optional: the blocks at heights `from, from + 1, …` read at once (one statement, so one
   * snapshot), ascending, one entry per height and none skipped (`RangeBlock`: `null` for a
   * height the store does not hold). Answers at least one height (for `count` ≥ 1) and at most
   * `count`, ending at the newest block found; fewer when the blocks after the first one found
   * would bring the transactions read past `maxTransactions`, so that memory stays bounded by
   * transactions as well as blocks. When the range holds no block, every height is `null`. The
   * estimate feed's catch-up reads this way: a store whose every read is a round trip
   * (PostgreSQL) would otherwise pay one per block.
   */
  parsedBlocks?(from: U64, count: number, maxTransactions: number): MaybePromise<RangeBlock[]>
  /**
   * Appends the next block atomically (all of it or nothing). Its height must be the current
   * height + 1 (or any height for the first block) and its first version the current ledger
   * version + 1; otherwise throws and nothing changes.
   */
  appendBlock(block: BlockJson): MaybePromise<void>
  /** Drops whole blocks whose last version is below `version`. */
  pruneBelow(version: U64): MaybePromise<void>
  close(): MaybePromise<void>
}

/**
 * A block as bulk ingest hands it to a store: checked on its own, with each transaction's JSON
 * text ready to be stored.
 */
export interface IngestBlock {
  /**
   * `checkBlock` of the block, with the store's `maxBlockTransactions`. Its `transactions` may
   * be cut down to the fields `checkBlock` reads (the block scanner's skeleton) or left empty
   * (bulk ingest): a store counts and writes `transactionJson`, never these.
   */
  checked: CheckedBlock
  /** UTF-8 JSON of each transaction, byte for byte what `JSON.stringify` writes for it. */
  transactionJson: readonly Uint8Array[]
}

/** What `appendBlocks` did: the blocks appended (a prefix of those given), and why the next one was refused. */
export interface BatchAppendResult {
  /** How many of the given blocks were appended, in order. */
  appended: number
  /** Why block `appended` was refused; absent when all were appended. */
  refused?: unknown
}

/** A store that can append many blocks in one commit: what bulk ingest writes to. */
export interface BatchAppendStore extends LedgerStore {
  /** Where the ledger lives, for messages: a file path, or a database URL without its password. */
  readonly path: string
  /** Most transactions a block may carry to be appended. */
  readonly maxBlockTransactions: number
  /**
   * Appends `blocks` in order, as `appendBlock` would one by one, in one commit. At the first
   * refused block it stops: the blocks before it are committed, it and those after it are not,
   * and the refusal is returned rather than thrown. Other failures (the database) throw, and
   * then none of the batch is committed. Readers see the batch's blocks all at once.
   */
  appendBlocks(blocks: readonly BlockJson[]): MaybePromise<BatchAppendResult>
  /**
   * Optional: `appendBlocks` of blocks already checked on their own, whose transactions' JSON
   * the store takes as given (bulk ingest reads both from the line without building the block).
   * The rules that depend on the ledger (continuity, sequence numbers) are still the store's.
   */
  appendChecked?(blocks: readonly IngestBlock[]): MaybePromise<BatchAppendResult>
  /**
   * Optional: the stored blocks at heights `from .. from + count − 1` without their
   * transactions (as `blockByHeight(h, false)`), ascending; heights not stored are absent. A
   * store whose reads cost a round trip offers it so a resumed ingest compares many skipped
   * blocks per read.
   */
  blockHeaders?(from: U64, count: number): MaybePromise<BlockJson[]>
}

/**
 * The ledger-info row both SQL stores read: heights and versions as index keys (decoded by
 * `fromKey`, each store's own encoding), epoch and timestamp as decimal text.
 */
export interface LedgerInfoRow<K> {
  epoch: string
  block_timestamp: string
  last_version: K
  oldest_version: K
  block_height: K
  oldest_block_height: K
}

/** `LedgerInfo` from a SQL store's ledger-info row. */
export function ledgerInfoFromRow<K>(chainId: number, row: LedgerInfoRow<K>, fromKey: (key: K) => U64): LedgerInfo {
  return {
    chain_id: chainId,
    epoch: parseU64(row.epoch) as U64,
    ledger_version: fromKey(row.last_version),
    oldest_ledger_version: fromKey(row.oldest_version),
    ledger_timestamp_usec: parseU64(row.block_timestamp) as U64,
    block_height: fromKey(row.block_height),
    oldest_block_height: fromKey(row.oldest_block_height),
  }
}
