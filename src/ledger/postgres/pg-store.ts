import type pg from 'pg'
import type { U64 } from '../../core/u64.js'
import { LedgerDatabaseError, LedgerUnavailableError } from '../store/database-error.js'
import { checkLimitOption, DEFAULT_MAX_BLOCK_TRANSACTIONS } from '../store/limits.js'
import { asUnavailable, clientConfig, isConnectionError, parsePgTarget, pgDriver, type PgTarget } from './pg-connection.js'
import { ensureLedgerSchema } from './pg-schema.js'
import { fromKey, headerOf, keyRange, SQL, toKey, type BlockRow, type CountedBlockRow, type InfoRow } from './pg-sql.js'
import { PgWatcher, notifyChannel, type WatchOptions } from './pg-watch.js'
import { connectOrRefuse, currentSchema, PgWriter, WriterLockTakenError } from './pg-writer.js'
import { ingestBlocksOf } from '../ingest/ingest-block.js'
import { blockJsonHead, ledgerInfoFromRow, type BatchAppendResult, type BatchAppendStore, type BlockBytes, type IngestBlock, type LedgerInfo, type RangeBlock } from '../store/store.js'
import { parseStoredBlock, rangeAnswer } from '../store/parse-block.js'
import type { BlockJson, TransactionJson } from '../store/types.js'
import type { StoreOptions } from '../store/store-options.js'

/** Options of `PgStore.open`. */
export interface PgStoreOptions extends StoreOptions {
  /** A read API replica: never writes (the connections are read-only), refuses a database without a ledger. */
  readonly?: boolean | undefined
  /** Schema holding the ledger (default: `?schema=` of the URL, else the server's default, `public`). */
  schema?: string | undefined
  /** Most pooled connections for reads (default 10). */
  maxConnections?: number | undefined
  /** How long to wait for a connection before a read fails as unavailable (ms, default 3000). */
  connectTimeoutMs?: number | undefined
  /**
   * Longest a read may run on the server (ms, default 30000): past it PostgreSQL cancels it, so a
   * read the API has already answered 503 for does not hold a pooled connection. `serve` passes
   * its `--store-timeout`.
   */
  readTimeoutMs?: number | undefined
}

/**
 * A ledger in PostgreSQL: one writer (ingest, a follower), any number of read API replicas in
 * other processes. Same rules and answers as `MemoryStore`; every method returns a promise.
 *
 * Reads go through a connection pool; each is one statement, so one snapshot. Appends and
 * prunes go through the `PgWriter`, one at a time: a connection holding the writer lock (a
 * second writer is refused at open), whose batches are one statement each and notify
 * listeners (`watch`) with the new height when they commit. A connection failure surfaces as
 * `LedgerUnavailableError`; the pool reconnects on the next call, and the writer on its next
 * append (starting again from the database).
 *
 * @example
 * const store = await PgStore.open('postgres://ledger@127.0.0.1/ledger')
 * await store.appendBlock(block)
 * await store.close()
 */
export class PgStore implements BatchAppendStore {
  readonly chainId: number
  readonly maxBlockTransactions: number
  /** The URL without its password. */
  readonly path: string
  readonly readonly: boolean
  readonly #target: PgTarget
  readonly #pool: pg.Pool
  readonly #connectTimeoutMs: number
  /** NOTIFY channel of the ledger's schema, as the server resolved the schema. */
  readonly #channel: string
  #writer: PgWriter | null
  /** Serializes appends and prunes on the writer connection. */
  #queue: Promise<unknown> = Promise.resolve()
  #watchers = new Set<PgWatcher>()
  #closed = false

  private constructor(target: PgTarget, pool: pg.Pool, writer: PgWriter | null, found: { chainId: number; schema: string }, maxBlockTransactions: number, connectTimeoutMs: number) {
    this.#target = target
    this.#channel = notifyChannel(found.schema)
    this.path = target.shown
    this.#pool = pool
    this.#writer = writer
    this.readonly = writer === null
    this.chainId = found.chainId
    this.maxBlockTransactions = maxBlockTransactions
    this.#connectTimeoutMs = connectTimeoutMs
  }

  /**
   * Opens the ledger at `url` (`postgres://user:password@host:port/database[?schema=name]`),
   * creating its tables in an empty schema unless `readonly`.
   *
   * @throws LedgerDatabaseError when the server cannot be reached, the schema holds someone
   *   else's tables (no ledger marker), another schema version or chain, no ledger (read-only),
   *   or another writer holds the ledger. Nothing is written in any of these cases.
   */
  static async open(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
    const target = parsePgTarget(url, options.schema)
    const readonly = options.readonly ?? false
    const maxBlockTransactions = checkLimitOption('maxBlockTransactions', options.maxBlockTransactions ?? DEFAULT_MAX_BLOCK_TRANSACTIONS)
    const connectTimeoutMs = checkLimitOption('connectTimeoutMs', options.connectTimeoutMs ?? 3000)
    const statementTimeoutMs = checkLimitOption('readTimeoutMs', options.readTimeoutMs ?? 30_000)
    const config = clientConfig(target, { readonly, connectTimeoutMs, statementTimeoutMs })
    const pool = new (pgDriver().Pool)({ ...config, max: checkLimitOption('maxConnections', options.maxConnections ?? 10), idleTimeoutMillis: 30_000 })
    // An idle pooled connection that dies (server restart) must not crash the process; the
    // pool drops it and the next read connects anew.
    pool.on('error', () => {})
    let writer: PgWriter | null = null
    try {
      let found: { chainId: number; schema: string }
      if (readonly) {
        // A client of its own, not the pool's: a failed connect is ended at once (connectOrRefuse).
        const client = await connectOrRefuse(new (pgDriver().Client)(config), target)
        try {
          await currentSchema(client, target)
          found = await ensureLedgerSchema(client, target.shown, { readonly: true, chainId: options.chainId })
        } finally {
          await client.end().catch(() => {})
        }
      } else {
        writer = await PgWriter.connect(target, connectTimeoutMs)
        found = await ensureLedgerSchema(writer.client, target.shown, { readonly: false, chainId: options.chainId })
        await writer.readTip()
      }
      return new PgStore(target, pool, writer, found, maxBlockTransactions, connectTimeoutMs)
    } catch (error) {
      await writer?.close()
      await pool.end().catch(() => {})
      throw error
    }
  }

  async ledgerInfo(): Promise<LedgerInfo | null> {
    const row = (await this.#read<InfoRow>('ledger_info', SQL.info, []))[0]
    if (row === undefined) return null
    return ledgerInfoFromRow(this.chainId, row, fromKey)
  }

  async transactionByVersion(version: U64): Promise<TransactionJson | null> {
    const json = await this.transactionJsonByVersion(version)
    return json === null ? null : (JSON.parse(json) as TransactionJson)
  }

  async accountTransactions(address: string, start: U64, limit: number): Promise<TransactionJson[]> {
    return (await this.accountTransactionsJson(address, start, limit)).map((json) => JSON.parse(json) as TransactionJson)
  }

  /** `LedgerStore.transactionJsonByVersion`: the stored text, which is `JSON.stringify` of the transaction. */
  async transactionJsonByVersion(version: U64): Promise<string | null> {
    const row = (await this.#read<{ json: string }>('txn', SQL.txn, [toKey(version)]))[0]
    return row === undefined ? null : row.json
  }

  /** `LedgerStore.accountTransactionsJson`: the stored texts. */
  async accountTransactionsJson(address: string, start: U64, limit: number): Promise<string[]> {
    if (!(limit > 0)) return []
    return (await this.#read<{ json: string }>('account_txns', SQL.accountTxns, [address, ...keyRange(start, limit)])).map((r) => r.json)
  }

  async accountSequenceNumber(address: string): Promise<U64> {
    const row = (await this.#read<{ next_sequence_number: string }>('next_seq', SQL.nextSeq, [address]))[0]
    return row === undefined ? 0 : fromKey(row.next_sequence_number)
  }

  async blockByHeight(height: U64, withTransactions: boolean): Promise<BlockJson | null> {
    const b = (await this.#read<BlockRow>('block', SQL.block, [toKey(height), withTransactions]))[0]
    if (b === undefined) return null
    const header = headerOf(b)
    if (!withTransactions) return header
    return { ...header, transactions: JSON.parse(`[${b.txns ?? ''}]`) as TransactionJson[] }
  }

  /**
   * `LedgerStore.blockBytesByHeight`: the block's row and its transactions' stored text in one
   * statement (so one snapshot), joined with the header and encoded as UTF-8 once.
   */
  async blockBytesByHeight(height: U64, withTransactions: boolean): Promise<BlockBytes | null> {
    if (!withTransactions) {
      const b = (await this.#read<BlockRow>('block', SQL.block, [toKey(height), false]))[0]
      return b === undefined ? null : { body: Buffer.from(`${blockJsonHead(headerOf(b))}null}`), firstVersion: fromKey(b.first_version), lastVersion: fromKey(b.last_version), count: 0 }
    }
    const b = (await this.#read<CountedBlockRow>('block_counted', SQL.blockCounted, [toKey(height)]))[0]
    if (b === undefined) return null
    return { body: Buffer.from(`${blockJsonHead(headerOf(b))}[${b.txns ?? ''}]}`), firstVersion: fromKey(b.first_version), lastVersion: fromKey(b.last_version), count: Number(b.n) }
  }

  /**
   * `LedgerStore.parsedBlocks`: the range's blocks and their transactions' stored text in one
   * statement (so one round trip and one snapshot), each parsed as `blockByHeight`'s answer.
   */
  async parsedBlocks(from: U64, count: number, maxTransactions: number): Promise<RangeBlock[]> {
    if (!(count > 0)) return []
    const rows = await this.#read<BlockRow>('block_range', SQL.blockRange, [...keyRange(from, count), String(Math.max(1, Math.floor(maxTransactions)))])
    return rangeAnswer(from, count, rows, (b) => fromKey(b.block_height), (b) => parseStoredBlock(headerOf(b), b.txns ?? ''))
  }

  /** `BatchAppendStore.blockHeaders`: one statement for `count` heights. */
  async blockHeaders(from: U64, count: number): Promise<BlockJson[]> {
    if (!(count > 0)) return []
    return (await this.#read<BlockRow>('headers', SQL.headers, keyRange(from, count))).map(headerOf)
  }

  /**
   * Appends the next block after checking every append rule (as `prepareAppend` does); one
   * statement, so all of it or nothing, and nothing changes when it throws.
   */
  async appendBlock(block: BlockJson): Promise<void> {
    const result = await this.appendBlocks([block])
    if (result.appended === 0) throw result.refused
  }

  /**
   * `BatchAppendStore.appendBlocks`: checked in memory against the writer's cache, the accepted
   * prefix written in one statement. O(transactions) work, two round trips at most.
   */
  async appendBlocks(blocks: readonly BlockJson[]): Promise<BatchAppendResult> {
    const { ready, refused } = ingestBlocksOf(blocks, this.maxBlockTransactions)
    const result = await this.appendChecked(ready)
    return result.refused === undefined && refused !== undefined ? { appended: result.appended, refused } : result
  }

  /** `BatchAppendStore.appendChecked`: as `appendBlocks`, for blocks checked on their own with their transactions' JSON. */
  appendChecked(blocks: readonly IngestBlock[]): Promise<BatchAppendResult> {
    if (blocks.length === 0) return Promise.resolve({ appended: 0 })
    return this.#serial((w) => w.append(blocks, this.maxBlockTransactions, this.#channel))
  }

  /**
   * Drops whole blocks whose `last_version` is below `version` with their transactions and
   * account-index rows, in one statement. The newest block is always kept, so the ledger info
   * and the continuity rule survive any prune; accounts keep their next sequence number.
   */
  async pruneBelow(version: U64): Promise<void> {
    await this.#serial((w) => w.prune(version))
  }

  /**
   * Calls `onHeight` with the new block height whenever the ledger grows: at once through
   * LISTEN/NOTIFY (a writer's commit notifies), and by polling every `pollMs` as a fallback for
   * notifications lost while the listening connection was down. Heights only rise; a failure
   * to reach the database is retried, never thrown. Stopped by `close()` of the result or of
   * the store.
   */
  watch(onHeight: (height: U64) => void, options: WatchOptions = {}): { close(): Promise<void> } {
    const watcher = new PgWatcher(
      () => new (pgDriver().Client)(clientConfig(this.#target, { readonly: true, connectTimeoutMs: this.#connectTimeoutMs })),
      this.#channel,
      async () => {
        const row = (await this.#read<{ block_height: string }>('tip', SQL.tip, []))[0]
        return row === undefined ? null : fromKey(row.block_height)
      },
      onHeight,
      options,
    )
    this.#watchers.add(watcher)
    return {
      close: async () => {
        this.#watchers.delete(watcher)
        await watcher.close()
      },
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await Promise.all([...this.#watchers].map((w) => w.close()))
    this.#watchers.clear()
    await this.#queue.catch(() => {})
    const writer = this.#writer
    this.#writer = null
    await writer?.close()
    await this.#pool.end().catch(() => {})
  }

  async #read<Row extends object>(name: string, text: string, values: unknown[]): Promise<Row[]> {
    try {
      return (await this.#pool.query<Row>({ name, text, values })).rows
    } catch (error) {
      throw asUnavailable(error, this.path)
    }
  }

  /**
   * Runs `task` on the writer, one at a time, opening a new writer first if the last one was
   * dropped. A task that throws drops its writer: whether its statement committed is unknown,
   * so the next one starts again from the database.
   */
  #serial<T>(task: (w: PgWriter) => Promise<T>): Promise<T> {
    const run = this.#queue.then(async () => {
      if (this.readonly) throw new LedgerDatabaseError(`${this.path} is open read-only (a read API replica); appends go through 'ledger-gas ingest'`)
      if (this.#closed) throw new LedgerDatabaseError(`${this.path} is closed`)
      let w = this.#writer
      try {
        if (w === null) {
          w = await PgWriter.connect(this.#target, this.#connectTimeoutMs).catch((error: unknown) => {
            // A connection failure is an outage, not a bad database: unwrap it for asUnavailable.
            // So is the lock still held on reconnecting: the server may not yet know that this
            // writer's lost session is gone. Anything else (a password no longer accepted, the
            // schema dropped) stays what it is.
            if (error instanceof WriterLockTakenError) throw new LedgerUnavailableError(`${error.message}; if that is this writer's lost session, the server frees its lock once it notices; retrying`, { cause: error })
            throw error instanceof LedgerDatabaseError && isConnectionError(error.cause) ? error.cause : error
          })
          this.#writer = w
          await w.readTip()
        }
        return await task(w)
      } catch (error) {
        if (w !== null && this.#writer === w) {
          this.#writer = null
          void w.close()
        }
        throw asUnavailable(error, this.path)
      }
    })
    this.#queue = run.catch(() => {})
    return run
  }
}
