import type { U64 } from '../core/u64.js'
import { LedgerGasError } from '../core/errors.js'
import { isPostgresUrl, redactUrl } from '../ledger/postgres/pg-connection.js'
import { PgStore } from '../ledger/postgres/pg-store.js'
import { SqliteStore } from '../ledger/sqlite/sqlite-store.js'
import type { MemoryStore } from '../ledger/memory-store.js'
import type { BatchAppendStore, LedgerStore } from '../ledger/store/store.js'
import { UsageError } from './errors.js'
import { checkInput } from './paths.js'

export { coalesced } from './coalesced.js'

/** A ledger opened from `--db`, and how a replica learns of blocks that another process appends. */
export interface OpenedLedger {
  store: LedgerStore
  /** `--db` as it may be printed (a URL without its password). */
  source: string
  /**
   * Calls `onHeight` when the ledger grows (PostgreSQL: NOTIFY with a polling fallback); returns
   * the stop function. Absent for SQLite, whose readers catch up on the next request.
   */
  watch?: (onHeight: (height: U64) => void) => () => Promise<void>
}

/** Options of `openLedger`. */
export interface OpenLedgerOptions {
  /** A read API replica: read-only, and the ledger must already exist. */
  readonly: boolean
  chainId?: number | undefined
  maxBlockTransactions?: number | undefined
  /** Polling period of a PostgreSQL replica's watch (ms). */
  pollMs?: number | undefined
  /** PostgreSQL: longest a read may run on the server (ms); `serve` gives its store timeout. */
  readTimeoutMs?: number | undefined
}

/**
 * Opens the ledger `--db` names: a `postgres://` or `postgresql://` URL is a PostgreSQL ledger
 * (`PgStore`), anything else a SQLite file. The one place the CLI picks a store.
 *
 * @throws UsageError (exit 2) when the ledger cannot be opened: a missing file for a reader, a
 *   database that is not a ledger of this tool, another chain, an unreachable server.
 */
export async function openLedger(db: string, options: OpenLedgerOptions & { readonly: false }): Promise<OpenedLedger & { store: BatchAppendStore }>
export async function openLedger(db: string, options: OpenLedgerOptions): Promise<OpenedLedger>
export async function openLedger(db: string, options: OpenLedgerOptions): Promise<OpenedLedger> {
  const limits = { ...(options.chainId === undefined ? {} : { chainId: options.chainId }), ...(options.maxBlockTransactions === undefined ? {} : { maxBlockTransactions: options.maxBlockTransactions }) }
  if (isPostgresUrl(db)) {
    let store: PgStore
    try {
      store = await PgStore.open(db, { ...limits, readonly: options.readonly, readTimeoutMs: options.readTimeoutMs })
    } catch (error) {
      // A database that is not a ledger (LedgerDatabaseError, exit 2) names itself; pass it on.
      if (error instanceof LedgerGasError) throw error
      throw new UsageError(`cannot open --db ${redactUrl(db)}: ${(error as Error).message}`)
    }
    return {
      store,
      source: store.path,
      watch: (onHeight) => {
        const w = store.watch(onHeight, { pollMs: options.pollMs })
        return () => w.close()
      },
    }
  }
  if (options.readonly) await checkInput(db, 'db')
  // SqliteStore.open refuses another program's file untouched (LedgerDatabaseError, exit 2, naming it).
  return { store: SqliteStore.open(db, { ...limits, readonly: options.readonly }), source: db }
}

/**
 * The ledger a follower (`serve --follow`, `--follow-stream`) writes: the database at `db` when
 * given, else the memory store that `memory` makes (empty, or loaded from `--data`).
 */
export async function openFollowerStore(db: string | undefined, memory: () => Promise<MemoryStore>): Promise<{ store: BatchAppendStore; source: string }> {
  if (db !== undefined) {
    const { store, source } = await openLedger(db, { readonly: false })
    return { store, source }
  }
  const store = await memory()
  return { store, source: store.path }
}
