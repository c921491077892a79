import Database from 'better-sqlite3'
import { parseU64, type U64 } from '../core/u64.js'
import { prepareAppend, type LedgerTip } from './append-rules.js'
import { LedgerDatabaseError } from './database-error.js'
import { checkLimitOption, DEFAULT_MAX_BLOCK_TRANSACTIONS } from './limits.js'
import { DEFAULT_CHAIN_ID, type StoreOptions } from './memory-store.js'
import { ledgerInfoFromRow, type BatchAppendResult, type BatchAppendStore, type LedgerInfo } from './store.js'
import type { BlockJson, TransactionJson } from './types.js'

/** Options of `SqliteStore.open`. */
export interface SqliteStoreOptions extends StoreOptions {
  /** Open read-only (for a server beside a separate ingest); the file must exist. */
  readonly?: boolean
  /** Refuse to create the file when it does not exist. */
  mustExist?: boolean
}

const SCHEMA_VERSION = '1'

export { LedgerDatabaseError }

/**
 * u64 columns hold `value − 2^63` in SQLite's signed 64-bit INTEGER: every u64 fits and the
 * order is kept, so ranges and `ORDER BY` stay exact up to 2^64−1. Decoded only here.
 */
const KEY_BIAS = 1n << 63n
const MAX_KEY = KEY_BIAS - 1n

function toKey(value: U64): bigint {
  return BigInt(value) - KEY_BIAS
}

function fromKey(key: bigint): U64 {
  return parseU64(key + KEY_BIAS) as U64
}

// One row per block; u64 columns are keys (see KEY_BIAS), epoch and timestamp are only echoed.
// transactions: the node's JSON of each transaction by version; sender and sequence_number are
// set only on sequence-number user transactions, so the partial index below is the account index
// (address, sequence_number → version) and pruning a version range prunes it too.
// accounts: next sequence number per sender, kept when its transactions are pruned.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blocks (
  block_height INTEGER PRIMARY KEY,
  block_hash TEXT NOT NULL,
  block_timestamp TEXT NOT NULL,
  first_version INTEGER NOT NULL,
  last_version INTEGER NOT NULL,
  epoch TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS transactions (
  version INTEGER PRIMARY KEY,
  sender TEXT,
  sequence_number INTEGER,
  json TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS account_transactions ON transactions (sender, sequence_number) WHERE sender IS NOT NULL;
CREATE TABLE IF NOT EXISTS accounts (address TEXT PRIMARY KEY, next_sequence_number INTEGER NOT NULL) WITHOUT ROWID;
`

interface BlockRow {
  block_height: bigint
  block_hash: string
  block_timestamp: string
  first_version: bigint
  last_version: bigint
  epoch: string
}

interface InfoRow {
  block_height: bigint
  last_version: bigint
  epoch: string
  block_timestamp: string
  oldest_block_height: bigint
  oldest_version: bigint
}

/**
 * The persistent ledger (better-sqlite3, WAL). Same rules and answers as `MemoryStore`. Each
 * append is one SQLite transaction, so a reader (in this or another process) and a crash never
 * see part of a block; reads are synchronous, prepared statements, and each is one statement or
 * one read transaction, so they see one snapshot.
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
  readonly #appendTx: Database.Transaction<(block: BlockJson) => void>
  readonly #readBlock: (height: U64, withTransactions: boolean) => BlockJson | null

  private constructor(path: string, db: Database.Database, chainId: number, maxBlockTransactions: number) {
    this.path = path
    this.#db = db
    this.chainId = chainId
    this.maxBlockTransactions = maxBlockTransactions
    this.#s = prepareStatements(db)
    this.#appendTx = db.transaction((block: BlockJson) => this.#append(block))
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
    let db: Database.Database
    try {
      db = new Database(path, { readonly, fileMustExist: readonly || (options.mustExist ?? false) })
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
        if (!readonly) {
          db.pragma('journal_mode = WAL')
          // In WAL mode NORMAL loses no committed transaction on a process crash, only on power loss.
          db.pragma('synchronous = NORMAL')
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
    const row = this.#s.info.get()
    if (row === undefined) return null
    return ledgerInfoFromRow(this.chainId, row, fromKey)
  }

  transactionByVersion(version: U64): TransactionJson | null {
    const json = this.#s.txn.get(toKey(version))
    return json === undefined ? null : (JSON.parse(json) as TransactionJson)
  }

  accountTransactions(address: string, start: U64, limit: number): TransactionJson[] {
    if (!(limit > 0)) return []
    const from = toKey(start)
    const last = from + BigInt(Math.ceil(limit)) - 1n
    return this.#s.accountTxns.all(address, from, last < MAX_KEY ? last : MAX_KEY).map((json) => JSON.parse(json) as TransactionJson)
  }

  accountSequenceNumber(address: string): U64 {
    const key = this.#s.nextSeq.get(address)
    return key === undefined ? 0 : fromKey(key)
  }

  blockByHeight(height: U64, withTransactions: boolean): BlockJson | null {
    return withTransactions ? this.#readBlock(height, true) : this.#block(height, false)
  }

  /**
   * Appends the next block in one SQLite transaction after checking every append rule (see
   * `prepareAppend`); nothing changes when it throws. Inside `batch` it is a savepoint.
   */
  appendBlock(block: BlockJson): void {
    this.#appendTx.immediate(block)
  }

  /**
   * Runs `fn` in one SQLite transaction so that the appends in it share one commit (much faster
   * for bulk ingest). Each `appendBlock` inside is still all-or-nothing: a refused block rolls
   * back only itself, so `fn` may catch it and return to commit the blocks before it. If `fn`
   * throws, the whole batch is rolled back.
   */
  batch<T>(fn: () => T): T {
    return this.#db.transaction(fn).immediate()
  }

  /** `BatchAppendStore.appendBlocks`: the blocks in one SQLite transaction (`batch`). */
  appendBlocks(blocks: readonly BlockJson[]): BatchAppendResult {
    return this.batch(() => {
      for (let i = 0; i < blocks.length; i++) {
        try {
          this.appendBlock(blocks[i] as BlockJson)
        } catch (refused) {
          return { appended: i, refused }
        }
      }
      return { appended: blocks.length }
    })
  }

  /**
   * Drops whole blocks whose `last_version` is below `version` with their transactions and
   * account-index rows, in one transaction. The newest block is always kept, so the ledger info
   * and the continuity rule survive any prune; accounts keep their next sequence number.
   */
  pruneBelow(version: U64): void {
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

  #tip(): LedgerTip | null {
    const row = this.#s.newest.get()
    return row === undefined ? null : { block_height: fromKey(row.block_height), last_version: fromKey(row.last_version) }
  }

  #append(block: BlockJson): void {
    const s = this.#s
    const prepared = prepareAppend(block, this.#tip(), (address) => {
      const key = s.nextSeq.get(address)
      return key === undefined ? undefined : fromKey(key)
    }, this.maxBlockTransactions)
    const { parsed } = prepared
    s.insertBlock.run(toKey(parsed.block_height), prepared.block_hash, String(prepared.block_timestamp), toKey(parsed.first_version), toKey(parsed.last_version), String(parsed.epoch))
    const entries = prepared.entries
    let e = 0
    const txns = prepared.transactions
    const first = toKey(parsed.first_version)
    for (let i = 0; i < txns.length; i++) {
      const entry = entries[e]
      if (entry !== undefined && entry.index === i) {
        s.insertTxn.run(first + BigInt(i), entry.address, toKey(entry.sequence_number), JSON.stringify(txns[i]))
        e++
      } else {
        s.insertTxn.run(first + BigInt(i), null, null, JSON.stringify(txns[i]))
      }
    }
    for (const [address, next] of prepared.nextSequenceNumbers) s.upsertAccount.run(address, toKey(next))
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
    const txns = this.#s.blockTxns.all(b.first_version, b.last_version).map((json) => JSON.parse(json) as TransactionJson)
    return { ...header, transactions: txns }
  }
}

/** The `meta` table as a map; empty when it is not ours (another program's table of that name). */
function readMeta(db: Database.Database): Map<string, string> {
  try {
    return new Map(db.prepare<[], { key: string; value: string }>('SELECT key, value FROM meta').all().map((r) => [r.key, r.value]))
  } catch {
    return new Map()
  }
}

/** Statements with their bind parameters and row types; u64 columns bind and read as biased keys (bigint). */
function prepareStatements(db: Database.Database) {
  return {
    info: db.prepare<[], InfoRow>(
      `SELECT n.block_height, n.last_version, n.epoch, n.block_timestamp, o.block_height AS oldest_block_height, o.first_version AS oldest_version
       FROM (SELECT * FROM blocks ORDER BY block_height DESC LIMIT 1) n, (SELECT * FROM blocks ORDER BY block_height LIMIT 1) o`,
    ),
    newest: db.prepare<[], BlockRow>('SELECT * FROM blocks ORDER BY block_height DESC LIMIT 1'),
    block: db.prepare<[bigint], BlockRow>('SELECT * FROM blocks WHERE block_height = ?'),
    // pluck(): each row is its one column, so the row type is that column's.
    blockTxns: db.prepare<[bigint, bigint], string>('SELECT json FROM transactions WHERE version BETWEEN ? AND ? ORDER BY version').pluck(),
    txn: db.prepare<[bigint], string>('SELECT json FROM transactions WHERE version = ?').pluck(),
    accountTxns: db.prepare<[string, bigint, bigint], string>('SELECT json FROM transactions WHERE sender = ? AND sequence_number BETWEEN ? AND ? ORDER BY sequence_number').pluck(),
    nextSeq: db.prepare<[string], bigint>('SELECT next_sequence_number FROM accounts WHERE address = ?').pluck(),
    // Heights and versions rise together, so the first block in height order that reaches
    // `version` is where pruning stops; the scan is O(pruned blocks).
    firstKept: db.prepare<[bigint], BlockRow>('SELECT * FROM blocks WHERE last_version >= ? ORDER BY block_height LIMIT 1'),
    insertBlock: db.prepare<[bigint, string, string, bigint, bigint, string]>(
      'INSERT INTO blocks (block_height, block_hash, block_timestamp, first_version, last_version, epoch) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    insertTxn: db.prepare<[bigint, string | null, bigint | null, string]>('INSERT INTO transactions (version, sender, sequence_number, json) VALUES (?, ?, ?, ?)'),
    upsertAccount: db.prepare<[string, bigint]>(
      'INSERT INTO accounts (address, next_sequence_number) VALUES (?, ?) ON CONFLICT (address) DO UPDATE SET next_sequence_number = excluded.next_sequence_number',
    ),
    pruneTxns: db.prepare<[bigint]>('DELETE FROM transactions WHERE version < ?'),
    pruneBlocks: db.prepare<[bigint]>('DELETE FROM blocks WHERE block_height < ?'),
  }
}
