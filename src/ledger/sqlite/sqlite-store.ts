import type Database from 'better-sqlite3'
import type { U64 } from '../../core/u64.js'
import { checkBlockSize, checkContinuity, checkSequenceNumbers, type LedgerTip } from '../store/append-rules.js'
import { LedgerDatabaseError } from '../store/database-error.js'
import { sqliteWriteError } from './sqlite-error.js'
import { ingestBlocksOf } from '../ingest/ingest-block.js'
import { checkLimitOption, DEFAULT_MAX_BLOCK_TRANSACTIONS } from '../store/limits.js'
import { DEFAULT_CHAIN_ID, type StoreOptions } from '../store/store-options.js'
import { requirePeer } from '../optional-peer.js'
import { ledgerInfoFromRow, type BatchAppendResult, type BatchAppendStore, type IngestBlock, type LedgerInfo, type TransactionPageBytes } from '../store/store.js'
import type { BlockJson, TransactionJson } from '../store/types.js'
import { fromKey, INSERT_ROWS, MAX_KEY, prepareStatements, readMeta, SCHEMA, SCHEMA_VERSION, toKey } from './sqlite-schema.js'

export { LedgerDatabaseError }

/** Options of `SqliteStore.open`. */
export interface SqliteStoreOptions extends StoreOptions {
  /** Open read-only (for a server beside a separate ingest); the file must exist. */
  readonly?: boolean
  /** Refuse to create the file when it does not exist. */
  mustExist?: boolean
  /** Most pages the database may grow to (`PRAGMA max_page_count`): a size quota; a write past it fails as a full disk does. */
  maxPageCount?: number | undefined
  /**
   * How long a write waits for another connection's lock before it fails as `SQLITE_BUSY` (an
   * outage the writers retry), in ms. Default 5000, better-sqlite3's.
   */
  busyTimeoutMs?: number
}

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
    const readonly = options.readonly ?? false
    const maxBlockTransactions = checkLimitOption('maxBlockTransactions', options.maxBlockTransactions ?? DEFAULT_MAX_BLOCK_TRANSACTIONS)
    const busyTimeoutMs = checkLimitOption('busyTimeoutMs', options.busyTimeoutMs ?? 5000)
    // Loaded on use: better-sqlite3 is an optional peer, so the engine installs without compiling it.
    const BetterSqlite = requirePeer<typeof Database>('better-sqlite3', 'a SQLite ledger')
    let db: Database.Database
    try {
      db = new BetterSqlite(path, { readonly, fileMustExist: readonly || (options.mustExist ?? false), timeout: busyTimeoutMs })
    } catch (error) {
      throw new LedgerDatabaseError(`cannot open ${path}: ${(error as Error).message}`, { cause: error })
    }
    try {
      db.defaultSafeIntegers(true)
      let meta: Map<string, string>
      try {
        // Read before anything is written: a SQLite file of another program is refused as it is
        // (not even its journal mode changes), only an empty one becomes a ledger.
        const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all()
        meta = tables.includes('meta') ? readMeta(db) : new Map()
        if (tables.length > 0 && !meta.has('schema_version')) {
          throw new LedgerDatabaseError(`${path} is a SQLite database but not a ledger (it has the tables ${tables.join(', ')} and no ledger schema); refusing to change it`)
        }
        if (readonly && tables.length === 0) throw new LedgerDatabaseError(`${path} is not a ledger database: it has no tables`)
        // Reads through a memory map: a ledger larger than the page cache is read without a
        // syscall per page (bench/scale.ts: account listings on a 200k-block ledger).
        db.pragma('mmap_size = 268435456')
        if (!readonly) {
          db.pragma('journal_mode = WAL')
          // In WAL mode NORMAL loses no committed transaction on a process crash, only on power loss.
          db.pragma('synchronous = NORMAL')
          // 32 MiB of pages for the writer: a batch inserts into the account index in sender
          // order, all over it, and each page it dirties is written to the WAL once per commit
          // while it stays cached (bench/stores.ts).
          db.pragma('cache_size = -32768')
          // Statement journals in memory: a multi-row insert may abort on the unique account
          // index, so SQLite journals each existing page it touches for the statement; past
          // 64 KiB that journal spilled to a temp file: 19% of the writes' CPU samples in perf
          // (bench/stores.ts). It never outlives its statement.
          db.pragma('temp_store = MEMORY')
          if (options.maxPageCount !== undefined) db.pragma(`max_page_count = ${checkLimitOption('maxPageCount', options.maxPageCount)}`)
        }
      } catch (error) {
        if (error instanceof LedgerDatabaseError) throw error
        throw new LedgerDatabaseError(`${path} is not a ledger database: ${(error as Error).message}`, { cause: error })
      }
      const schema = meta.get('schema_version')
      if (schema !== undefined && schema !== SCHEMA_VERSION) throw new LedgerDatabaseError(`${path} has ledger schema ${schema}, this build reads ${SCHEMA_VERSION}`)
      const stored = meta.get('chain_id')
      if (stored !== undefined && options.chainId !== undefined && Number(stored) !== options.chainId) {
        throw new LedgerDatabaseError(`${path} holds chain id ${stored}, not ${options.chainId}`)
      }
      const chainId = stored !== undefined ? Number(stored) : (options.chainId ?? DEFAULT_CHAIN_ID)
      if (!readonly) {
        // The schema and its meta rows in one transaction: a crash leaves an empty file or a
        // ledger, never tables without the schema version that marks them as ours.
        db.transaction(() => {
          db.exec(SCHEMA)
          if (schema !== undefined) return
          const put = db.prepare<[string, string]>('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)')
          put.run('schema_version', SCHEMA_VERSION)
          put.run('chain_id', String(chainId))
        })()
      }
      return new SqliteStore(path, db, chainId, maxBlockTransactions)
    } catch (error) {
      db.close()
      throw error
    }
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

  /** `LedgerStore.accountTransactionsBytes`: the stored UTF-8 bytes, joined into the JSON array in one buffer. */
  accountTransactionsBytes(address: string, start: U64, limit: number): TransactionPageBytes {
    const rows = limit > 0 ? this.#s.accountTxnBytes.all(address, toKey(start), accountPageLast(start, limit)) : []
    let n = rows.length + 1
    for (const row of rows) n += row[1].length
    const body = Buffer.allocUnsafe(Math.max(n, 2))
    body[0] = 0x5b
    let o = 1
    for (let i = 0; i < rows.length; i++) {
      const json = (rows[i] as [bigint, Buffer])[1]
      // A row changed behind the store's back (the append rules checked it when it was written)
      // must not make the page a wrong answer: each is one JSON object, checked at its two ends.
      if (json[0] !== 0x7b || json[json.length - 1] !== 0x7d) {
        throw new LedgerDatabaseError(`${this.path}: the stored JSON of ${address}'s transaction ${fromKey((rows[i] as [bigint, Buffer])[0])} is not one JSON object`)
      }
      if (i > 0) body[o++] = 0x2c
      o += json.copy(body, o)
    }
    body[o] = 0x5d
    return { body, count: rows.length, firstSequenceNumber: rows.length === 0 ? null : fromKey((rows[0] as [bigint, Buffer])[0]) }
  }

  accountSequenceNumber(address: string): U64 {
    const key = this.#s.nextSeq.get(address)
    return key === undefined ? 0 : fromKey(key)
  }

  blockByHeight(height: U64, withTransactions: boolean): BlockJson | null {
    return withTransactions ? this.#readBlock(height, true) : this.#block(height, false)
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
    for (const { checked } of blocks) {
      const { parsed } = checked
      try {
        checkBlockSize({ block_height: String(parsed.block_height), transactions: checked.transactions }, this.maxBlockTransactions)
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
      this.#write(blocks, accepted)
      for (const [address, n] of next) this.#s.upsertAccount.run(address, toKey(n))
      // Caches now hold what this transaction wrote; if it does not commit, `#forget` drops them.
      this.#info = undefined
      this.#tipCache = tip
      if (this.#accounts.size + next.size > ACCOUNT_CACHE_MAX) this.#accounts.clear()
      for (const [address, n] of next) this.#accounts.set(address, n)
    }
    return refused === undefined ? { appended: accepted } : { appended: accepted, refused }
  }

  /** Writes the first `count` blocks: a row each, and their transactions `INSERT_ROWS` rows per statement. */
  #write(blocks: readonly IngestBlock[], count: number): void {
    const s = this.#s
    const rows = this.#rows
    let k = 0
    for (let b = 0; b < count; b++) {
      const { checked, transactionJson } = blocks[b] as IngestBlock
      const { parsed, entries } = checked
      s.insertBlock.run(toKey(parsed.block_height), checked.block_hash, String(checked.block_timestamp), toKey(parsed.first_version), toKey(parsed.last_version), String(parsed.epoch))
      // Versions are first_version + i (checkBlock holds each transaction to it).
      const first = toKey(parsed.first_version)
      let e = 0
      for (let i = 0; i < transactionJson.length; i++) {
        const entry = entries[e]
        rows[k] = first + BigInt(i)
        if (entry !== undefined && entry.index === i) {
          rows[k + 1] = entry.address
          rows[k + 2] = toKey(entry.sequence_number)
          e++
        } else {
          rows[k + 1] = null
          rows[k + 2] = null
        }
        rows[k + 3] = transactionJson[i]
        k += 4
        if (k === rows.length) {
          s.insertTxns.run(...rows)
          k = 0
        }
      }
    }
    for (let j = 0; j < k; j += 4) s.insertTxn.run(rows[j] as bigint, rows[j + 1] as string | null, rows[j + 2] as bigint | null, rows[j + 3] as Uint8Array)
    rows.fill(undefined)
  }

  #block(height: U64, withTransactions: boolean): BlockJson | null {
    const b = this.#s.block.get(toKey(height))
    if (b === undefined) return null
    const header = {
      block_height: String(fromKey(b.block_height)),
      block_hash: b.block_hash,
      block_timestamp: b.block_timestamp,
      first_version: String(fromKey(b.first_version)),
      last_version: String(fromKey(b.last_version)),
    }
    // The node omits `transactions` when with_transactions=false; BlockJson types it as required.
    if (!withTransactions) return header as BlockJson
    const txns = JSON.parse(`[${this.#s.blockTxns.all(b.first_version, b.last_version).join(',')}]`) as TransactionJson[]
    return { ...header, transactions: txns }
  }
}
