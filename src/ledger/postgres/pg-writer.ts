import type pg from 'pg'
import type { U64 } from '../../core/u64.js'
import { checkBlockSize, checkContinuity, checkSequenceNumbers, type CheckedBlock, type LedgerTip } from '../store/append-rules.js'
import { LedgerDatabaseError } from '../store/database-error.js'
import { connectError } from './pg-connect-error.js'
import { clientConfig, pgDriver, type PgTarget } from './pg-connection.js'
import { copyFrom, CopyText } from './pg-copy.js'
import { fromKey, SQL, toKey } from './pg-sql.js'
import type { BatchAppendResult, IngestBlock } from '../store/store.js'

/** Leading bytes of the writer lock's key (`lgas`); the schema's hash is the rest. */
const LOCK_CLASS = 0x6c676173

/** Cached next sequence numbers past this many senders are dropped and re-read as needed. */
const ACCOUNT_CACHE_MAX = 1_000_000

/**
 * Connects `client`, turning a failure into a one-line `LedgerDatabaseError` that says what to
 * fix (`connectError`). The client is ended on failure: a server still waiting for a password
 * would otherwise hold the socket, and the process, until its authentication timeout.
 */
export async function connectOrRefuse(client: pg.Client, target: PgTarget): Promise<pg.Client> {
  // A connection lost later is noticed by the next query, which fails; unheard, it would crash the process.
  client.on('error', () => {})
  try {
    await client.connect()
    return client
  } catch (error) {
    await client.end().catch(() => {})
    throw connectError(error, target)
  }
}

/**
 * The schema the connection's `search_path` resolved to; refused when it names none that
 * exists, before the writer lock, whose key hashes the schema's name (a NULL key is no lock).
 */
export async function currentSchema(client: pg.ClientBase, target: PgTarget): Promise<string> {
  const schema = (await client.query<{ s: string | null }>('SELECT current_schema() AS s')).rows[0]?.s ?? null
  if (schema !== null) return schema
  if (target.schema !== undefined) throw new LedgerDatabaseError(`${target.shown}: schema ${target.schema} does not exist (create it, or drop ?schema)`)
  throw new LedgerDatabaseError(`${target.shown}: no schema to hold the ledger (the server's search_path names none that exists; create one, or name one with ?schema)`)
}

/** Another session holds the ledger's writer lock. */
export class WriterLockTakenError extends LedgerDatabaseError {}

/**
 * The one writer of a PostgreSQL ledger: its own connection, holding a session advisory lock
 * on the ledger's schema for its lifetime, so no other process appends meanwhile. Being alone,
 * it keeps the tip and the senders' next sequence numbers it has read or written, and checks a
 * batch against them in memory. Invariant: the cache is the database's state as long as no
 * statement has failed; after a failure (committed or not, unknown) the writer must be dropped
 * and a new one opened, which starts from the database again.
 */
export class PgWriter {
  readonly client: pg.Client
  #tip: LedgerTip | null = null
  /** Next sequence number of senders read or written so far; `null`: not in the ledger. */
  readonly #accounts = new Map<string, U64 | null>()
  /** The COPY rows of the batch being written, reused: one batch is written at a time, and `copyFrom` has sent them when it settles. */
  readonly #blockRows = new CopyText()
  readonly #transactionRows = new CopyText()

  private constructor(client: pg.Client) {
    this.client = client
  }

  /**
   * Connects and takes the writer lock. Call `readTip` once the schema is known to exist.
   *
   * @throws LedgerDatabaseError when the server cannot be reached or another writer holds the lock.
   */
  static async connect(target: PgTarget, connectTimeoutMs: number): Promise<PgWriter> {
    const client = await connectOrRefuse(new (pgDriver().Client)(clientConfig(target, { readonly: false, connectTimeoutMs })), target)
    try {
      const schema = await currentSchema(client, target)
      const locked = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [LOCK_CLASS, schema])).rows[0]?.ok
      if (locked !== true) throw new WriterLockTakenError(`${target.shown}: another ledger-gas writer is appending to this ledger (one writer at a time; replicas open it with serve)`)
      return new PgWriter(client)
    } catch (error) {
      await client.end().catch(() => {})
      throw error
    }
  }

  async readTip(): Promise<void> {
    const row = (await this.client.query<{ block_height: string; last_version: string }>(SQL.tip)).rows[0]
    this.#tip = row === undefined ? null : { block_height: fromKey(row.block_height), last_version: fromKey(row.last_version) }
  }

  /**
   * `BatchAppendStore.appendChecked`: for blocks checked on their own, the rules that depend on
   * the ledger in `prepareAppend`'s order (continuity with the one before, its senders' sequence
   * numbers), against the cache and the blocks before it in the batch; senders the cache lacks
   * are read in one query. The accepted prefix is written in one transaction that notifies `channel` (`#write`).
   */
  async append(blocks: readonly IngestBlock[], maxTransactions: number, channel: string): Promise<BatchAppendResult> {
    let refused: unknown
    await this.#loadAccounts(blocks.map((b) => b.checked))
    const accepted: IngestBlock[] = []
    const next = new Map<string, U64>()
    let tip = this.#tip
    for (const b of blocks) {
      const c = b.checked
      try {
        checkBlockSize({ block_height: String(c.parsed.block_height), transactions: b.transactionJson }, maxTransactions)
        checkContinuity(c.parsed, tip)
        const after = checkSequenceNumbers(c, (a) => next.get(a) ?? this.#accounts.get(a) ?? undefined)
        for (const [a, n] of after) next.set(a, n)
      } catch (error) {
        refused = error
        break
      }
      accepted.push(b)
      tip = { block_height: c.parsed.block_height, last_version: c.parsed.last_version }
    }
    if (tip !== null && accepted.length > 0) {
      await this.#write(accepted, next, channel, String(tip.block_height))
      this.#tip = tip
      if (this.#accounts.size + next.size > ACCOUNT_CACHE_MAX) this.#accounts.clear()
      for (const [a, n] of next) this.#accounts.set(a, n)
    }
    return refused === undefined ? { appended: accepted.length } : { appended: accepted.length, refused }
  }

  /** Drops whole blocks below `version` (see `PgStore.pruneBelow`); the tip and the senders are kept. */
  async prune(version: U64): Promise<void> {
    await this.client.query(SQL.prune, [toKey(version)])
  }

  /** Closes the connection, which releases the lock. */
  async close(): Promise<void> {
    await this.client.end().catch(() => {})
  }

  /**
   * Writes checked blocks in one transaction: their rows by `COPY … FROM STDIN` (a bulk load,
   * with no statement or parameter per row), then the senders' next sequence numbers and the
   * notification in one statement. Readers see all of it or none, a crash keeps all of it or
   * none, and the notification goes out at the commit. A failure rolls back what was sent
   * (when the connection still answers) and is thrown; the writer is then dropped (see class).
   */
  async #write(blocks: readonly IngestBlock[], next: Map<string, U64>, channel: string, height: string): Promise<void> {
    const blockRows = this.#blockRows.reset()
    const transactionRows = this.#transactionRows.reset()
    copyRows(blocks, blockRows, transactionRows)
    const addresses: string[] = []
    const nexts: string[] = []
    for (const [a, n] of next) {
      addresses.push(a)
      nexts.push(toKey(n))
    }
    await this.client.query('BEGIN')
    try {
      await copyFrom(this.client, SQL.copyBlocks, [blockRows.bytes()])
      await copyFrom(this.client, SQL.copyTransactions, [transactionRows.bytes()])
      await this.client.query({ name: 'append_accounts', text: SQL.appendAccounts, values: [addresses.join(','), nexts.join(','), channel, height] })
      await this.client.query('COMMIT')
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => {})
      throw error
    }
  }

  async #loadAccounts(blocks: CheckedBlock[]): Promise<void> {
    const missing = new Set<string>()
    for (const b of blocks) for (const e of b.entries) if (!this.#accounts.has(e.address)) missing.add(e.address)
    if (missing.size === 0) return
    const rows = (await this.client.query<{ address: string; next_sequence_number: string }>({ name: 'next_seqs', text: SQL.nextSeqs, values: [[...missing].join(',')] })).rows
    if (this.#accounts.size + missing.size > ACCOUNT_CACHE_MAX) this.#accounts.clear()
    for (const a of missing) this.#accounts.set(a, null)
    for (const r of rows) this.#accounts.set(r.address, fromKey(r.next_sequence_number))
  }
}

/**
 * Writes the rows of checked blocks in COPY's text format: one per block into `blockRows`, one
 * per transaction into `transactionRows`, with keys as `toKey` writes them.
 */
function copyRows(blocks: readonly IngestBlock[], blockRows: CopyText, transactionRows: CopyText): void {
  for (const { checked: b, transactionJson } of blocks) {
    const { parsed } = b
    blockRows.plain(toKey(parsed.block_height)).plain(b.block_hash).plain(String(b.block_timestamp)).plain(toKey(parsed.first_version)).plain(toKey(parsed.last_version)).lastPlain(String(parsed.epoch))
    // Versions are first_version + i (checkBlock holds each transaction to it).
    const first = BigInt(toKey(parsed.first_version))
    let e = 0
    for (let i = 0; i < transactionJson.length; i++) {
      transactionRows.plain(String(first + BigInt(i)))
      const entry = b.entries[e]
      if (entry !== undefined && entry.index === i) {
        transactionRows.plain(entry.address).plain(toKey(entry.sequence_number))
        e++
      } else transactionRows.null().null()
      transactionRows.lastJson(transactionJson[i] as Uint8Array)
    }
  }
}
