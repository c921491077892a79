import pg from 'pg'
import { parseU64, type U64 } from '../core/u64.js'
import { checkBlock, checkContinuity, checkSequenceNumbers, type CheckedBlock, type LedgerTip } from './append-rules.js'
import { LedgerDatabaseError } from './database-error.js'
import { checkLimitOption, DEFAULT_MAX_BLOCK_TRANSACTIONS } from './limits.js'
import type { StoreOptions } from './memory-store.js'
import { asUnavailable, clientConfig, parsePgTarget, type PgTarget } from './pg-connection.js'
import { ensureLedgerSchema } from './pg-schema.js'
import { PgWatcher, notifyChannel, type WatchOptions } from './pg-watch.js'
import type { BatchAppendResult, BatchAppendStore, LedgerInfo } from './store.js'
import type { BlockJson, TransactionJson } from './types.js'

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

/** `value − 2^63` (see pg-schema.ts): u64 keys as PostgreSQL `bigint`, decoded only in this file. */
const KEY_BIAS = 1n << 63n
const MAX_KEY = KEY_BIAS - 1n

function toKey(value: U64): string {
  return String(BigInt(value) - KEY_BIAS)
}

/** A key as the driver returns `bigint` (a decimal string) back to a u64. */
function fromKey(key: string): U64 {
  return parseU64(BigInt(key) + KEY_BIAS) as U64
}

/** Leading bytes of the writer lock's key (`lgas`); the schema's hash is the rest. */
const LOCK_CLASS = 0x6c676173

/** Cached next sequence numbers past this many senders are dropped and re-read as needed. */
const ACCOUNT_CACHE_MAX = 1_000_000

/** In unnest arrays joined with ',', this stands for SQL NULL. */
const NULL_ITEM = '-'

const Q = {
  info: `SELECT n.block_height, n.last_version, n.epoch::text AS epoch, n.block_timestamp::text AS block_timestamp,
           o.block_height AS oldest_block_height, o.first_version AS oldest_version
         FROM (SELECT * FROM blocks ORDER BY block_height DESC LIMIT 1) n, (SELECT * FROM blocks ORDER BY block_height LIMIT 1) o`,
  tip: 'SELECT block_height, last_version FROM blocks ORDER BY block_height DESC LIMIT 1',
  txn: 'SELECT json FROM transactions WHERE version = $1',
  accountTxns: 'SELECT json FROM transactions WHERE sender = $1 AND sequence_number BETWEEN $2 AND $3 ORDER BY sequence_number',
  nextSeq: 'SELECT next_sequence_number FROM accounts WHERE address = $1',
  nextSeqs: `SELECT address, next_sequence_number FROM accounts WHERE address = ANY (string_to_array($1, ','))`,
  headers: `SELECT block_height, block_hash, block_timestamp::text AS block_timestamp, first_version, last_version, NULL AS txns
            FROM blocks WHERE block_height BETWEEN $1 AND $2 ORDER BY block_height`,
  // One statement, so one snapshot: a block and its transactions, never a pruned half.
  block: `SELECT b.block_height, b.block_hash, b.block_timestamp::text AS block_timestamp, b.first_version, b.last_version,
            CASE WHEN $2 THEN (SELECT string_agg(t.json, ',' ORDER BY t.version) FROM transactions t WHERE t.version BETWEEN b.first_version AND b.last_version) END AS txns
          FROM blocks b WHERE b.block_height = $1`,
  // A whole batch of blocks in one statement, so one implicit transaction: readers see all of it
  // or none, a crash keeps all of it or none, and it costs one round trip. Arrays travel as
  // joined text (no JSON text holds a raw newline), which spares the driver's array escaping.
  append: `WITH b AS (
      INSERT INTO blocks (block_height, block_hash, block_timestamp, first_version, last_version, epoch)
      SELECT * FROM unnest(string_to_array($1, ',')::bigint[], string_to_array($2, ','), string_to_array($3, ',')::numeric[],
                           string_to_array($4, ',')::bigint[], string_to_array($5, ',')::bigint[], string_to_array($6, ',')::numeric[])
    ), t AS (
      INSERT INTO transactions (version, sender, sequence_number, json)
      SELECT * FROM unnest(string_to_array($7, ',')::bigint[], string_to_array($8, ',', '${NULL_ITEM}'), string_to_array($9, ',', '${NULL_ITEM}')::bigint[], string_to_array($10, E'\\n'))
    ), a AS (
      INSERT INTO accounts (address, next_sequence_number)
      SELECT * FROM unnest(string_to_array($11, ','), string_to_array($12, ',')::bigint[])
      ON CONFLICT (address) DO UPDATE SET next_sequence_number = excluded.next_sequence_number
    )
    SELECT pg_notify($13, $14)`,
  // Heights and versions rise together: keep the first block reaching `version`, else the newest.
  prune: `WITH keep AS (
      SELECT coalesce((SELECT block_height FROM blocks WHERE last_version >= $1 ORDER BY block_height LIMIT 1),
                      (SELECT max(block_height) FROM blocks)) AS h
    ), t AS (
      DELETE FROM transactions WHERE version < (SELECT first_version FROM blocks WHERE block_height = (SELECT h FROM keep))
    )
    DELETE FROM blocks WHERE block_height < (SELECT h FROM keep)`,
}

interface InfoRow {
  block_height: string
  last_version: string
  epoch: string
  block_timestamp: string
  oldest_block_height: string
  oldest_version: string
}

interface BlockRow {
  block_height: string
  block_hash: string
  block_timestamp: string
  first_version: string
  last_version: string
  txns: string | null
}

/** The writer's view of the ledger, valid while it holds the writer lock. */
interface WriterState {
  client: pg.Client
  tip: LedgerTip | null
  /** Next sequence number of senders read or written so far; `null`: not in the ledger. */
  accounts: Map<string, U64 | null>
}

/**
 * A ledger in PostgreSQL: one writer (ingest, a follower), any number of read API replicas in
 * other processes. Same rules and answers as `MemoryStore`; every method returns a promise.
 *
 * Reads go through a connection pool; each is one statement, so one snapshot. Appends go
 * through one connection that holds a session advisory lock on the ledger's schema (a second
 * writer is refused at open), so the writer may keep the tip and the senders' next sequence
 * numbers in memory and check a batch of blocks without asking the database; the batch is then
 * written by one statement, whose commit notifies listeners (`watch`) with the new height.
 * A connection failure surfaces as `LedgerUnavailableError`; the pool reconnects on the next
 * call, and the writer on its next append (re-reading what it had cached).
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
  /** The schema the ledger lives in, as the server resolved it (names the NOTIFY channel). */
  readonly #schema: string
  #writer: WriterState | null
  /** Serializes appends and prunes on the writer connection. */
  #queue: Promise<unknown> = Promise.resolve()
  #watchers = new Set<PgWatcher>()
  #closed = false

  private constructor(target: PgTarget, pool: pg.Pool, writer: WriterState | null, found: { chainId: number; schema: string }, maxBlockTransactions: number, connectTimeoutMs: number) {
    this.#target = target
    this.#schema = found.schema
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
    const pool = new pg.Pool({ ...config, max: checkLimitOption('maxConnections', options.maxConnections ?? 10), idleTimeoutMillis: 30_000 })
    // An idle pooled connection that dies (server restart) must not crash the process; the
    // pool drops it and the next read connects anew.
    pool.on('error', () => {})
    let writer: WriterState | null = null
    try {
      let found: { chainId: number; schema: string }
      if (readonly) {
        const client = await connectOrRefuse(() => pool.connect(), target)
        try {
          found = await ensureLedgerSchema(client, target.shown, { readonly: true, chainId: options.chainId })
        } finally {
          client.release()
        }
      } else {
        writer = await openWriter(target, connectTimeoutMs)
        found = await ensureLedgerSchema(writer.client, target.shown, { readonly: false, chainId: options.chainId })
        writer.tip = await readTip(writer.client)
      }
      return new PgStore(target, pool, writer, found, maxBlockTransactions, connectTimeoutMs)
    } catch (error) {
      await writer?.client.end().catch(() => {})
      await pool.end().catch(() => {})
      throw error
    }
  }

  async ledgerInfo(): Promise<LedgerInfo | null> {
    const row = (await this.#read<InfoRow>('ledger_info', Q.info, []))[0]
    if (row === undefined) return null
    return {
      chain_id: this.chainId,
      epoch: parseU64(row.epoch) as U64,
      ledger_version: fromKey(row.last_version),
      oldest_ledger_version: fromKey(row.oldest_version),
      ledger_timestamp_usec: parseU64(row.block_timestamp) as U64,
      block_height: fromKey(row.block_height),
      oldest_block_height: fromKey(row.oldest_block_height),
    }
  }

  async transactionByVersion(version: U64): Promise<TransactionJson | null> {
    const row = (await this.#read<{ json: string }>('txn', Q.txn, [toKey(version)]))[0]
    return row === undefined ? null : (JSON.parse(row.json) as TransactionJson)
  }

  async accountTransactions(address: string, start: U64, limit: number): Promise<TransactionJson[]> {
    if (!(limit > 0)) return []
    const from = BigInt(start) - KEY_BIAS
    const last = from + BigInt(Math.ceil(limit)) - 1n
    const rows = await this.#read<{ json: string }>('account_txns', Q.accountTxns, [address, String(from), String(last < MAX_KEY ? last : MAX_KEY)])
    return rows.map((r) => JSON.parse(r.json) as TransactionJson)
  }

  async accountSequenceNumber(address: string): Promise<U64> {
    const row = (await this.#read<{ next_sequence_number: string }>('next_seq', Q.nextSeq, [address]))[0]
    return row === undefined ? 0 : fromKey(row.next_sequence_number)
  }

  async blockByHeight(height: U64, withTransactions: boolean): Promise<BlockJson | null> {
    const b = (await this.#read<BlockRow>('block', Q.block, [toKey(height), withTransactions]))[0]
    if (b === undefined) return null
    const header = headerOf(b)
    if (!withTransactions) return header
    return { ...header, transactions: JSON.parse(`[${b.txns ?? ''}]`) as TransactionJson[] }
  }

  /** `BatchAppendStore.blockHeaders`: one statement for `count` heights. */
  async blockHeaders(from: U64, count: number): Promise<BlockJson[]> {
    if (!(count > 0)) return []
    const first = BigInt(from) - KEY_BIAS
    const last = first + BigInt(Math.ceil(count)) - 1n
    const rows = await this.#read<BlockRow>('headers', Q.headers, [String(first), String(last < MAX_KEY ? last : MAX_KEY)])
    return rows.map((b) => headerOf(b))
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
   * `BatchAppendStore.appendBlocks`: checks the blocks in order against the writer's cached
   * tip and senders (one query for senders it has not seen), then writes the accepted prefix in
   * one statement. O(transactions) work, two round trips at most.
   */
  appendBlocks(blocks: readonly BlockJson[]): Promise<BatchAppendResult> {
    return this.#serial(async (w) => {
      const accepted: { checked: CheckedBlock; next: Map<string, U64> }[] = []
      let refused: unknown
      const checkedAll: CheckedBlock[] = []
      for (const block of blocks) {
        try {
          checkedAll.push(checkBlock(block, this.maxBlockTransactions))
        } catch (error) {
          refused = error
          break
        }
      }
      await this.#loadAccounts(w, checkedAll)
      let tip = w.tip
      const pending = new Map<string, U64>()
      for (let i = 0; i < checkedAll.length; i++) {
        const checked = checkedAll[i] as CheckedBlock
        try {
          checkContinuity(checked.parsed, tip)
          const next = checkSequenceNumbers(checked, (a) => pending.get(a) ?? w.accounts.get(a) ?? undefined)
          for (const [a, n] of next) pending.set(a, n)
          accepted.push({ checked, next })
          tip = { block_height: checked.parsed.block_height, last_version: checked.parsed.last_version }
        } catch (error) {
          refused = error
          break
        }
      }
      if (accepted.length > 0) {
        try {
          await w.client.query({ name: 'append', text: Q.append, values: appendValues(accepted.map((a) => a.checked), pending, notifyChannel(this.#schema), String(tip?.block_height)) })
        } catch (error) {
          // Committed or not, the cache may now be wrong: start over from the database.
          this.#dropWriter(w)
          throw asUnavailable(error, this.path)
        }
        w.tip = tip
        if (w.accounts.size + pending.size > ACCOUNT_CACHE_MAX) w.accounts.clear()
        for (const [a, n] of pending) w.accounts.set(a, n)
      }
      return refused === undefined ? { appended: accepted.length } : { appended: accepted.length, refused }
    })
  }

  /**
   * Drops whole blocks whose `last_version` is below `version` with their transactions and
   * account-index rows, in one statement. The newest block is always kept, so the ledger info
   * and the continuity rule survive any prune; accounts keep their next sequence number.
   */
  async pruneBelow(version: U64): Promise<void> {
    await this.#serial(async (w) => {
      try {
        await w.client.query(Q.prune, [toKey(version)])
      } catch (error) {
        this.#dropWriter(w)
        throw asUnavailable(error, this.path)
      }
    })
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
      () => new pg.Client(clientConfig(this.#target, { readonly: true, connectTimeoutMs: this.#connectTimeoutMs })),
      notifyChannel(this.#schema),
      async () => {
        const row = (await this.#read<{ block_height: string }>('tip', Q.tip, []))[0]
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
    await writer?.client.end().catch(() => {})
    await this.#pool.end().catch(() => {})
  }

  async #read<Row extends object>(name: string, text: string, values: unknown[]): Promise<Row[]> {
    try {
      return (await this.#pool.query<Row>({ name, text, values })).rows
    } catch (error) {
      throw asUnavailable(error, this.path)
    }
  }

  /** Runs `task` on the writer connection, one at a time, reconnecting it first if it was lost. */
  #serial<T>(task: (w: WriterState) => Promise<T>): Promise<T> {
    const run = this.#queue.then(async () => {
      if (this.readonly) throw new LedgerDatabaseError(`${this.path} is open read-only (a read API replica); appends go through 'ledger-gas ingest'`)
      if (this.#closed) throw new LedgerDatabaseError(`${this.path} is closed`)
      if (this.#writer === null) {
        const w = await openWriter(this.#target, this.#connectTimeoutMs).catch((error: unknown) => {
          throw asUnavailable(error instanceof LedgerDatabaseError && error.cause !== undefined ? error.cause : error, this.path)
        })
        try {
          w.tip = await readTip(w.client)
        } catch (error) {
          await w.client.end().catch(() => {})
          throw asUnavailable(error, this.path)
        }
        this.#writer = w
      }
      return task(this.#writer)
    })
    this.#queue = run.catch(() => {})
    return run
  }

  #dropWriter(w: WriterState): void {
    if (this.#writer === w) this.#writer = null
    void w.client.end().catch(() => {})
  }

  /** Reads the next sequence number of every sender of `blocks` the cache does not know, in one query. */
  async #loadAccounts(w: WriterState, blocks: CheckedBlock[]): Promise<void> {
    const missing = new Set<string>()
    for (const b of blocks) for (const e of b.entries) if (!w.accounts.has(e.address)) missing.add(e.address)
    if (missing.size === 0) return
    let rows: { address: string; next_sequence_number: string }[]
    try {
      rows = (await w.client.query<{ address: string; next_sequence_number: string }>({ name: 'next_seqs', text: Q.nextSeqs, values: [[...missing].join(',')] })).rows
    } catch (error) {
      this.#dropWriter(w)
      throw asUnavailable(error, this.path)
    }
    if (w.accounts.size + missing.size > ACCOUNT_CACHE_MAX) w.accounts.clear()
    for (const a of missing) w.accounts.set(a, null)
    for (const r of rows) w.accounts.set(r.address, fromKey(r.next_sequence_number))
  }
}

/** A block row as the node's block JSON without `transactions` (the node omits them when not asked; BlockJson types them as required). */
function headerOf(b: BlockRow): BlockJson {
  return {
    block_height: String(fromKey(b.block_height)),
    block_hash: b.block_hash,
    block_timestamp: b.block_timestamp,
    first_version: String(fromKey(b.first_version)),
    last_version: String(fromKey(b.last_version)),
  } as BlockJson
}

/** Connects with `connect`, turning a failure into a `LedgerDatabaseError` that names the server. */
async function connectOrRefuse<T>(connect: () => Promise<T>, target: PgTarget): Promise<T> {
  try {
    return await connect()
  } catch (error) {
    const e = error as { message?: string; code?: string }
    throw new LedgerDatabaseError(`cannot connect to PostgreSQL ledger ${target.shown}: ${e.message || e.code || String(error)}`, { cause: error })
  }
}

/** The writer's own connection, holding the writer lock on the ledger's schema for its lifetime. */
async function openWriter(target: PgTarget, connectTimeoutMs: number): Promise<WriterState> {
  const client = new pg.Client(clientConfig(target, { readonly: false, connectTimeoutMs }))
  // A lost connection is noticed by the next query, which fails; without a listener it would crash the process.
  client.on('error', () => {})
  await connectOrRefuse(() => client.connect(), target)
  try {
    const locked = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS ok', [LOCK_CLASS])).rows[0]?.ok
    if (locked !== true) throw new LedgerDatabaseError(`${target.shown}: another ledger-gas writer is appending to this ledger (one writer at a time; replicas open it with serve)`)
    return { client, tip: null, accounts: new Map() }
  } catch (error) {
    await client.end().catch(() => {})
    throw error
  }
}

async function readTip(client: pg.ClientBase): Promise<LedgerTip | null> {
  const row = (await client.query<{ block_height: string; last_version: string }>(Q.tip)).rows[0]
  return row === undefined ? null : { block_height: fromKey(row.block_height), last_version: fromKey(row.last_version) }
}

/** The parameters of `Q.append` for checked blocks and the senders' next sequence numbers after them. */
function appendValues(blocks: CheckedBlock[], next: Map<string, U64>, channel: string, height: string): string[] {
  const heights: string[] = []
  const hashes: string[] = []
  const timestamps: string[] = []
  const firsts: string[] = []
  const lasts: string[] = []
  const epochs: string[] = []
  const versions: string[] = []
  const senders: string[] = []
  const seqs: string[] = []
  const jsons: string[] = []
  for (const b of blocks) {
    const { parsed } = b
    heights.push(toKey(parsed.block_height))
    hashes.push(b.block_hash)
    timestamps.push(String(b.block_timestamp))
    firsts.push(toKey(parsed.first_version))
    lasts.push(toKey(parsed.last_version))
    epochs.push(String(parsed.epoch))
    const first = BigInt(parsed.first_version) - KEY_BIAS
    let e = 0
    for (let i = 0; i < b.transactions.length; i++) {
      versions.push(String(first + BigInt(i)))
      const entry = b.entries[e]
      if (entry !== undefined && entry.index === i) {
        senders.push(entry.address)
        seqs.push(toKey(entry.sequence_number))
        e++
      } else {
        senders.push(NULL_ITEM)
        seqs.push(NULL_ITEM)
      }
      jsons.push(JSON.stringify(b.transactions[i]))
    }
  }
  const addresses: string[] = []
  const nexts: string[] = []
  for (const [a, n] of next) {
    addresses.push(a)
    nexts.push(toKey(n))
  }
  return [heights, hashes, timestamps, firsts, lasts, epochs, versions, senders, seqs].map((list) => list.join(',')).concat([jsons.join('\n'), addresses.join(','), nexts.join(','), channel, height])
}
