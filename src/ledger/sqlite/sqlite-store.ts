import type Database from 'better-sqlite3'
import type { U64 } from '../../core/u64.js'
import { checkBlockSize, checkContinuity, checkSequenceNumbers, type LedgerTip } from '../store/append-rules.js'
import { LedgerDatabaseError } from '../store/database-error.js'
import { sqliteWriteError } from './sqlite-error.js'
import { ingestBlocksOf } from '../ingest/ingest-block.js'
import { checkLimitOption, DEFAULT_MAX_BLOCK_TRANSACTIONS } from '../store/limits.js'
import { blockJsonHead, ledgerInfoFromRow, type BatchAppendResult, type BatchAppendStore, type BlockBytes, type IngestBlock, type LedgerInfo, type RangeBlock, type TransactionPageBytes } from '../store/store.js'
import { parseStoredBlock, rangeAnswer } from '../store/parse-block.js'
import type { BlockJson, TransactionJson } from '../store/types.js'
import { openLedgerDatabase, type SqliteStoreOptions } from './sqlite-open.js'
import { fromKey, INSERT_ROWS, MAX_KEY, MIN_KEY, prepareStatements, toKey, type BlockPageRow, type BlockRow, type JoinedRow } from './sqlite-schema.js'
import { writeBlocks } from './sqlite-write.js'

export { LedgerDatabaseError }
export type { SqliteStoreOptions }

/** A block row as the node's block JSON without `transactions`. */
function headerOf(b: BlockRow): Omit<BlockJson, 'transactions'> {
  return {
    block_height: String(fromKey(b.block_height)),
    block_hash: b.block_hash,
    block_timestamp: b.block_timestamp,
    first_version: String(fromKey(b.first_version)),
    last_version: String(fromKey(b.last_version)),
  }
}

/** A page without transactions. */
const emptyPage = (): TransactionPageBytes => ({ body: Buffer.from('[]'), count: 0, firstSequenceNumber: null })

/** Cached next sequence numbers past this many senders are dropped and re-read as needed. */
const ACCOUNT_CACHE_MAX = 1_000_000

/** The last sequence-number key of the page `[start, start + limit)`, saturating at the largest u64. */
function accountPageLast(start: U64, limit: number): bigint {
  const last = toKey(start) + BigInt(Math.ceil(limit)) - 1n
  return last < MAX_KEY ? last : MAX_KEY
}

/**
 * The persistent ledger (better-sqlite3, WAL). Same rules and answers as `MemoryStore`. Each
 * append is one SQLite transaction, so a reader (in this or another process) and a crash never
 * see part of a block; reads are synchronous, prepared statements, and each is one statement or
 * one read transaction, so they see one snapshot.
 *
 * The ledger info, the newest block and the senders' next sequence numbers are cached per state
 * of the database: this connection's writes keep them up to date, a failed write drops them, and
 * so does a commit of another connection (`PRAGMA data_version` changes), so a read costs its
 * own lookup, not the two-block query behind the headers, and a batch's rules are checked in
 * memory before anything is written.
 *
 * @example
 * const store = SqliteStore.open('ledger.db')
 * store.appendBlock(block)
 * store.close()
 */
export class SqliteStore implements BatchAppendStore {
  readonly chainId: number
  readonly maxBlockTransactions: number
  readonly path: string
  readonly #db: Database.Database
  readonly #s: ReturnType<typeof prepareStatements>
  readonly #appendTx: Database.Transaction<(blocks: readonly IngestBlock[]) => BatchAppendResult>
  readonly #readBlock: (height: U64, withTransactions: boolean) => BlockJson | null
  /** Cached ledger info and newest block, valid while `#dataVersion` is the database's; `undefined`: not known. */
  #info: LedgerInfo | null | undefined = undefined
  #tipCache: LedgerTip | null | undefined = undefined
  /** Next sequence number of senders read or written; `null`: not in the ledger. Same validity. */
  readonly #accounts = new Map<string, U64 | null>()
  #dataVersion = -1n
  /** Parameters of one multi-row insert, reused. */
  readonly #rows: unknown[] = new Array<unknown>(4 * INSERT_ROWS)

  private constructor(path: string, db: Database.Database, chainId: number, maxBlockTransactions: number) {
    this.path = path
    this.#db = db
    this.chainId = chainId
    this.maxBlockTransactions = maxBlockTransactions
    this.#s = prepareStatements(db)
    this.#appendTx = db.transaction((blocks: readonly IngestBlock[]) => this.#append(blocks))
    this.#readBlock = db.transaction((height: U64, withTransactions: boolean) => this.#block(height, withTransactions))
  }

  /**
   * Opens (creating unless told not to) a ledger database. The chain id is stored on creation;
   * `chainId` given for an existing database must match it.
   *
   * @throws LedgerDatabaseError when the file is not a ledger database, or holds another chain
   *   or schema version.
   */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    const maxBlockTransactions = checkLimitOption('maxBlockTransactions', options.maxBlockTransactions ?? DEFAULT_MAX_BLOCK_TRANSACTIONS)
    const { db, chainId } = openLedgerDatabase(path, options)
    return new SqliteStore(path, db, chainId, maxBlockTransactions)
  }

  ledgerInfo(): LedgerInfo | null {
    this.#checkVersion()
    if (this.#info !== undefined) return this.#info
    const row = this.#s.info.get()
    this.#info = row === undefined ? null : ledgerInfoFromRow(this.chainId, row, fromKey)
    return this.#info
  }

  transactionByVersion(version: U64): TransactionJson | null {
    const json = this.transactionJsonByVersion(version)
    return json === null ? null : (JSON.parse(json) as TransactionJson)
  }

  /** `LedgerStore.transactionJsonByVersion`: the stored text, which is `JSON.stringify` of the transaction. */
  transactionJsonByVersion(version: U64): string | null {
    return this.#s.txn.get(toKey(version)) ?? null
  }

  accountTransactions(address: string, start: U64, limit: number): TransactionJson[] {
    return this.accountTransactionsJson(address, start, limit).map((json) => JSON.parse(json) as TransactionJson)
  }

  /** `LedgerStore.accountTransactionsJson`: the stored texts. */
  accountTransactionsJson(address: string, start: U64, limit: number): string[] {
    if (!(limit > 0)) return []
    return this.#s.accountTxns.all(address, toKey(start), accountPageLast(start, limit))
  }

  /** `LedgerStore.transactionBytesByVersion`: the stored UTF-8 bytes. */
  transactionBytesByVersion(version: U64): Buffer | null {
    return this.#s.txnBytes.get(toKey(version)) ?? null
  }

  /** `LedgerStore.accountTransactionsBytes`: the stored UTF-8 bytes, joined into the JSON array by SQLite (one statement, one buffer). */
  accountTransactionsBytes(address: string, start: U64, limit: number): TransactionPageBytes {
    if (!(limit > 0)) return emptyPage()
    return this.#page(address, this.#s.accountPage.get(address, toKey(start), accountPageLast(start, limit)) as JoinedRow)
  }

  /** `LedgerStore.latestAccountTransactionsBytes`: as `accountTransactionsBytes`, its start found by the same statement. */
  latestAccountTransactionsBytes(address: string, limit: number): TransactionPageBytes {
    if (!(limit > 0)) return emptyPage()
    // No page holds 2^53 transactions: a larger limit reads as that one (and keeps `floor` a key).
    const n = BigInt(Math.min(Math.ceil(limit), Number.MAX_SAFE_INTEGER))
    return this.#page(address, this.#s.latestAccountPage.get({ address, limit: n, floor: MIN_KEY + n }) as JoinedRow)
  }

  #page(address: string, [count, first, body, bad]: JoinedRow): TransactionPageBytes {
    // A row changed behind the store's back (the append rules checked it when it was written)
    // must not make the page a wrong answer.
    if (bad !== null) throw new LedgerDatabaseError(`${this.path}: the stored JSON of ${address}'s transaction ${fromKey(bad)} is not one JSON object`)
    return { body, count: Number(count), firstSequenceNumber: first === null ? null : fromKey(first) }
  }

  accountSequenceNumber(address: string): U64 {
    const key = this.#s.nextSeq.get(address)
    return key === undefined ? 0 : fromKey(key)
  }

  blockByHeight(height: U64, withTransactions: boolean): BlockJson | null {
    return withTransactions ? this.#readBlock(height, true) : this.#block(height, false)
  }

  /**
   * `LedgerStore.blockBytesByHeight`: the block's row and its transactions' stored UTF-8 bytes
   * (one statement, so never a pruned half), joined into the body in one buffer.
   */
  blockBytesByHeight(height: U64, withTransactions: boolean): BlockBytes | null {
    return withTransactions ? this.#blockPageBytes(height) : this.#blockHeadBytes(height)
  }

  /**
   * `LedgerStore.parsedBlocks`: the range's blocks and their transactions' stored text in one
   * statement (so one snapshot), each parsed as `blockByHeight`'s answer as its row comes: only
   * one row's text is held at a time (the statement is iterated, not read whole).
   */
  parsedBlocks(from: U64, count: number, maxTransactions: number): RangeBlock[] {
    if (!(count > 0)) return []
    const first = toKey(from)
    const last = first + BigInt(Math.ceil(count)) - 1n
    const rows = this.#s.blockRange.iterate({ from: first, to: last < MAX_KEY ? last : MAX_KEY, budget: Math.max(1, Math.floor(maxTransactions)) })
    return rangeAnswer(from, count, rows, (b) => fromKey(b.block_height), (b) => parseStoredBlock(headerOf(b), b.txns ?? ''))
  }

  /**
   * Appends the next block in one SQLite transaction after checking every append rule (as
   * `prepareAppend` does); nothing changes when it throws. Inside `batch` it is a savepoint.
   */
  appendBlock(block: BlockJson): void {
    const result = this.appendBlocks([block])
    if (result.appended === 0) throw result.refused
  }

  /**
   * Runs `fn` in one SQLite transaction so that the appends in it share one commit. Each
   * `appendBlock` inside is still all-or-nothing: a refused block writes nothing, so `fn` may
   * catch it and return to commit the blocks before it. If `fn` throws, the whole batch is
   * rolled back. Nested in a batch it is a savepoint: a throwing inner batch takes back only its blocks.
   */
  batch<T>(fn: () => T): T {
    try {
      return this.#db.transaction(fn).immediate()
    } catch (error) {
      this.#forget()
      throw error
    }
  }

  /**
   * `BatchAppendStore.appendBlocks`: each block checked on its own (`checkBlock`) and its
   * transactions serialized, then `appendChecked`.
   */
  appendBlocks(blocks: readonly BlockJson[]): BatchAppendResult {
    const { ready, refused } = ingestBlocksOf(blocks, this.maxBlockTransactions)
    const result = this.appendChecked(ready)
    return result.refused === undefined && refused !== undefined ? { appended: result.appended, refused } : result
  }

  /**
   * `BatchAppendStore.appendChecked`: in one SQLite transaction, every rule that depends on the
   * ledger is checked in memory for each block (continuity with the one before, its senders'
   * sequence numbers) before anything is written; then the accepted prefix is written with
   * multi-row inserts and each sender's next sequence number once. A refused block thus writes
   * nothing and needs no savepoint; a write that fails (I/O, not a rule) rolls back the whole
   * batch and throws.
   */
  appendChecked(blocks: readonly IngestBlock[]): BatchAppendResult {
    if (blocks.length === 0) return { appended: 0 }
    try {
      return this.#appendTx.immediate(blocks)
    } catch (error) {
      this.#forget()
      throw sqliteWriteError(error, this.path)
    }
  }

  /**
   * Drops whole blocks whose `last_version` is below `version` with their transactions and
   * account-index rows, in one transaction. The newest block is always kept, so the ledger info
   * and the continuity rule survive any prune; accounts keep their next sequence number.
   */
  pruneBelow(version: U64): void {
    this.#info = undefined
    this.#db
      .transaction(() => {
        const keep = this.#s.firstKept.get(toKey(version)) ?? this.#s.newest.get()
        if (keep === undefined) return
        this.#s.pruneTxns.run(keep.first_version)
        this.#s.pruneBlocks.run(keep.block_height)
      })
      .immediate()
  }

  close(): void {
    if (this.#db.open) this.#db.close()
  }

  /** Drops the caches when another connection has committed since they were filled. O(1): one pragma. */
  #checkVersion(): void {
    const version = this.#s.dataVersion.get() as bigint
    if (version !== this.#dataVersion) {
      this.#dataVersion = version
      this.#forget()
    }
  }

  /** Drops the caches (another connection wrote, or a write of this one was rolled back). */
  #forget(): void {
    this.#info = undefined
    this.#tipCache = undefined
    this.#accounts.clear()
  }

  #tip(): LedgerTip | null {
    if (this.#tipCache !== undefined) return this.#tipCache
    const row = this.#s.newest.get()
    this.#tipCache = row === undefined ? null : { block_height: fromKey(row.block_height), last_version: fromKey(row.last_version) }
    return this.#tipCache
  }

  /** A sender's next sequence number in the ledger (cached), `undefined` when it has none. */
  #nextOf(address: string): U64 | undefined {
    const cached = this.#accounts.get(address)
    if (cached !== undefined) return cached ?? undefined
    const key = this.#s.nextSeq.get(address)
    const next = key === undefined ? null : fromKey(key)
    if (this.#accounts.size >= ACCOUNT_CACHE_MAX) this.#accounts.clear()
    this.#accounts.set(address, next)
    return next ?? undefined
  }

  /** Inside the append transaction: checks the blocks in order, writes the accepted prefix. */
  #append(blocks: readonly IngestBlock[]): BatchAppendResult {
    this.#checkVersion()
    let tip = this.#tip()
    const next = new Map<string, U64>()
    const nextOf = (address: string) => next.get(address) ?? this.#nextOf(address)
    let accepted = 0
    let refused: unknown
    for (const { checked, transactionJson } of blocks) {
      const { parsed } = checked
      try {
        checkBlockSize({ block_height: String(parsed.block_height), transactions: transactionJson }, this.maxBlockTransactions)
        checkContinuity(parsed, tip)
        for (const [address, n] of checkSequenceNumbers(checked, nextOf)) next.set(address, n)
      } catch (error) {
        refused = error
        break
      }
      tip = { block_height: parsed.block_height, last_version: parsed.last_version }
      accepted++
    }
    if (accepted > 0) {
      writeBlocks(this.#s, this.#rows, blocks, accepted)
      for (const [address, n] of next) this.#s.upsertAccount.run(address, toKey(n))
      // Caches now hold what this transaction wrote; if it does not commit, `#forget` drops them.
      this.#info = undefined
      this.#tipCache = tip
      if (this.#accounts.size + next.size > ACCOUNT_CACHE_MAX) this.#accounts.clear()
      for (const [address, n] of next) this.#accounts.set(address, n)
    }
    return refused === undefined ? { appended: accepted } : { appended: accepted, refused }
  }

  #block(height: U64, withTransactions: boolean): BlockJson | null {
    const b = this.#s.block.get(toKey(height))
    if (b === undefined) return null
    const header = headerOf(b)
    // The node omits `transactions` when with_transactions=false; BlockJson types it as required.
    if (!withTransactions) return header as BlockJson
    const txns = JSON.parse(`[${this.#s.blockTxns.all(b.first_version, b.last_version).join(',')}]`) as TransactionJson[]
    return { ...header, transactions: txns }
  }

  /** `blockBytesByHeight` without transactions. */
  #blockHeadBytes(height: U64): BlockBytes | null {
    const b = this.#s.block.get(toKey(height))
    if (b === undefined) return null
    return { body: Buffer.from(`${blockJsonHead(headerOf(b))}null}`), firstVersion: fromKey(b.first_version), lastVersion: fromKey(b.last_version), count: 0 }
  }

  /** `blockBytesByHeight` with transactions: the block row and its transactions joined by SQLite, in one statement. */
  #blockPageBytes(height: U64): BlockBytes | null {
    const [hash, timestamp, firstKey, lastKey, count, , tail, bad] = this.#s.blockPage.get(toKey(height)) as BlockPageRow
    if (hash === null || timestamp === null || firstKey === null || lastKey === null) return null
    // As in `accountTransactionsBytes`: a row changed behind the store's back is refused, not sent.
    if (bad !== null) throw new LedgerDatabaseError(`${this.path}: the stored JSON of transaction ${fromKey(bad)} is not one JSON object`)
    const firstVersion = fromKey(firstKey)
    const lastVersion = fromKey(lastKey)
    const head = blockJsonHead({ block_height: String(height), block_hash: hash, block_timestamp: timestamp, first_version: String(firstVersion), last_version: String(lastVersion) })
    const body = Buffer.allocUnsafe(Buffer.byteLength(head) + tail.length)
    tail.copy(body, body.write(head))
    return { body, firstVersion, lastVersion, count: Number(count) }
  }
}
