import type Database from 'better-sqlite3'
import { LedgerDatabaseError } from '../store/database-error.js'
import { checkLimitOption } from '../store/limits.js'
import { DEFAULT_CHAIN_ID, type StoreOptions } from '../store/store-options.js'
import { requirePeer } from '../optional-peer.js'
import { readMeta, SCHEMA, SCHEMA_VERSION } from './sqlite-schema.js'

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

/**
 * Opens (creating unless told not to) the SQLite file of a ledger for `SqliteStore.open`: refuses
 * a file that is not a ledger of this build untouched, sets the writer's pragmas, and creates the
 * schema with its meta rows. The chain id is stored on creation; `chainId` given for an existing
 * database must match it.
 *
 * @throws LedgerDatabaseError when the file is not a ledger database, or holds another chain
 *   or schema version.
 */
export function openLedgerDatabase(path: string, options: SqliteStoreOptions): { db: Database.Database; chainId: number } {
  const readonly = options.readonly ?? false
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
        // Statement journals in memory: a statement that may abort after writing (an upsert;
        // not the transactions' multi-row insert, which is OR FAIL for this reason) journals
        // each existing page it touches; past 64 KiB that journal spilled to a temp file: 19% of
        // the writes' CPU samples in perf (bench/stores.ts). It never outlives its statement.
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
    return { db, chainId }
  } catch (error) {
    db.close()
    throw error
  }
}
