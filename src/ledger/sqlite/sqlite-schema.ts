import type Database from 'better-sqlite3'
import { parseU64, type U64 } from '../../core/u64.js'

/**
 * The SQLite ledger's tables and statements (`sqlite-store.ts`): the schema and its version, the
 * u64 key encoding, and the prepared statements with their row types.
 */

/** The `schema_version` this build writes and reads in the `meta` table. */
export const SCHEMA_VERSION = '1'

/**
 * u64 columns hold `value − 2^63` in SQLite's signed 64-bit INTEGER: every u64 fits and the
 * order is kept, so ranges and `ORDER BY` stay exact up to 2^64−1. Decoded only here.
 */
const KEY_BIAS = 1n << 63n
export const MAX_KEY = KEY_BIAS - 1n
/** The key of u64 0. */
export const MIN_KEY = -KEY_BIAS

/** The key column value of a u64. */
export function toKey(value: U64): bigint {
  return BigInt(value) - KEY_BIAS
}

/** The u64 of a key column value. */
export function fromKey(key: bigint): U64 {
  return parseU64(key + KEY_BIAS) as U64
}

// One row per block; u64 columns are keys (see KEY_BIAS), epoch and timestamp are only echoed.
// transactions: the node's JSON of each transaction by version, exactly as JSON.stringify writes
// it (TEXT as earlier builds wrote it, or its UTF-8 bytes as a BLOB as bulk ingest writes it
// since: reads CAST it to TEXT, so both read the same); sender and sequence_number are
// set only on sequence-number user transactions, so the partial index below is the account index
// (address, sequence_number → version) and pruning a version range prunes it too.
// accounts: next sequence number per sender, kept when its transactions are pruned.
export const SCHEMA = `
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

export interface BlockRow {
  block_height: bigint
  block_hash: string
  block_timestamp: string
  first_version: bigint
  last_version: bigint
  epoch: string
}

/** A row of the range read: a block row and its transactions' JSON joined with `,` (`null` when it has none stored). */
export interface RangeRow extends BlockRow {
  txns: string | null
}

export interface InfoRow {
  block_height: bigint
  last_version: bigint
  epoch: string
  block_timestamp: string
  oldest_block_height: bigint
  oldest_version: bigint
}

/**
 * A page of stored transaction JSON as one row (`accountPage`, `latestAccountPage`, `blockPage`):
 * how many, the first key, the texts joined into the page's bytes as one BLOB, and the key of the
 * first stored text that is not one JSON object (`null` when all are).
 */
export type JoinedRow = [count: bigint, first: bigint | null, body: Buffer, bad: bigint | null]

/** A block row with its transactions joined (`blockPage`); the block's columns `null` when there is no block. */
export type BlockPageRow = [block_hash: string | null, block_timestamp: string | null, first_version: bigint | null, last_version: bigint | null, ...JoinedRow]

/**
 * The columns of a `JoinedRow` over a subquery of `key` and `json` ordered by `key`: the texts
 * joined by `,` between `[` and `close` (`concat` writes them once, and a NULL as nothing: `[` and
 * `close` when there are none). One value per page, not one per row: reading a row costs far less
 * inside SQLite than making it a JS object. The order is the subquery's: SQLite does not flatten
 * an ORDER BY subquery into an aggregate query, it feeds the aggregate its rows in that order, and
 * `group_concat` appends them as fed (the tests holding each page byte for byte to the per-row
 * reads keep this true). `group_concat(json, ',' ORDER BY key)` would say the order itself, but it
 * sorts the rows again in a temporary B-tree although the index already gives them in order. Each text is checked as one JSON object at its two ends, in bytes: a row
 * changed behind the store's back must fail the page, not be sent.
 */
function joined(key: string, close: string): string {
  const bytes = 'CAST(json AS BLOB)'
  const oneObject = `${bytes} >= x'7b' AND ${bytes} < x'7c' AND substr(${bytes}, -1) = x'7d'`
  return `count(${key}), min(${key}), CAST(concat('[', group_concat(json, ','), '${close}') AS BLOB), min(CASE WHEN ${oneObject} THEN NULL ELSE ${key} END)`
}

/** Rows per multi-row transaction insert: one statement run per 64 rows (bench/stores.ts). */
export const INSERT_ROWS = 64

/** The `meta` table as a map; empty when it is not ours (another program's table of that name). */
export function readMeta(db: Database.Database): Map<string, string> {
  try {
    return new Map(db.prepare<[], { key: string; value: string }>('SELECT key, value FROM meta').all().map((r) => [r.key, r.value]))
  } catch {
    return new Map()
  }
}

/** The store's prepared statements, by bind parameters and row type. */
export interface LedgerStatements {
  info: Database.Statement<[], InfoRow>
  newest: Database.Statement<[], BlockRow>
  block: Database.Statement<[bigint], BlockRow>
  blockRange: Database.Statement<[{ from: bigint; to: bigint; budget: number }], RangeRow>
  blockTxns: Database.Statement<[bigint, bigint], string>
  txn: Database.Statement<[bigint], string>
  accountTxns: Database.Statement<[string, bigint, bigint], string>
  txnBytes: Database.Statement<[bigint], Buffer>
  accountPage: Database.Statement<[string, bigint, bigint], JoinedRow>
  latestAccountPage: Database.Statement<[{ address: string; limit: bigint; floor: bigint }], JoinedRow>
  blockPage: Database.Statement<[bigint], BlockPageRow>
  dataVersion: Database.Statement<[], bigint>
  nextSeq: Database.Statement<[string], bigint>
  firstKept: Database.Statement<[bigint], BlockRow>
  insertBlock: Database.Statement<[bigint, string, string, bigint, bigint, string]>
  insertTxn: Database.Statement<[bigint, string | null, bigint | null, Uint8Array]>
  insertTxns: Database.Statement<unknown[]>
  upsertAccount: Database.Statement<[string, bigint]>
  pruneTxns: Database.Statement<[bigint]>
  pruneBlocks: Database.Statement<[bigint]>
}

/** Statements with their bind parameters and row types; u64 columns bind and read as biased keys (bigint). */
export function prepareStatements(db: Database.Database): LedgerStatements {
  return {
    info: db.prepare<[], InfoRow>(
      `SELECT n.block_height, n.last_version, n.epoch, n.block_timestamp, o.block_height AS oldest_block_height, o.first_version AS oldest_version
       FROM (SELECT * FROM blocks ORDER BY block_height DESC LIMIT 1) n, (SELECT * FROM blocks ORDER BY block_height LIMIT 1) o`,
    ),
    newest: db.prepare<[], BlockRow>('SELECT * FROM blocks ORDER BY block_height DESC LIMIT 1'),
    block: db.prepare<[bigint], BlockRow>('SELECT * FROM blocks WHERE block_height = ?'),
    // pluck(): each row is its one column, so the row type is that column's.
    // CAST: a row's JSON is TEXT or its UTF-8 bytes as a BLOB (see SCHEMA); both read as the text.
    // The catch-up's range read (`parsedBlocks`): the blocks of heights from..to with their
    // transactions, in one statement; after the first block found, only those whose last version
    // stays within `budget` transactions of its first version (versions rise with heights: a prefix).
    blockRange: db.prepare<[{ from: bigint; to: bigint; budget: number }], RangeRow>(
      `SELECT b.*, (SELECT group_concat(CAST(t.json AS TEXT), ',' ORDER BY t.version) FROM transactions t WHERE t.version BETWEEN b.first_version AND b.last_version) AS txns
       FROM blocks b, (SELECT block_height, first_version FROM blocks WHERE block_height BETWEEN @from AND @to ORDER BY block_height LIMIT 1) s
       WHERE b.block_height BETWEEN @from AND @to AND (b.block_height = s.block_height OR b.last_version - s.first_version < @budget)
       ORDER BY b.block_height`,
    ),
    blockTxns: db.prepare<[bigint, bigint], string>('SELECT CAST(json AS TEXT) FROM transactions WHERE version BETWEEN ? AND ? ORDER BY version').pluck(),
    txn: db.prepare<[bigint], string>('SELECT CAST(json AS TEXT) FROM transactions WHERE version = ?').pluck(),
    accountTxns: db
      .prepare<[string, bigint, bigint], string>('SELECT CAST(json AS TEXT) FROM transactions WHERE sender = ? AND sequence_number BETWEEN ? AND ? ORDER BY sequence_number')
      .pluck(),
    // The same rows' UTF-8 bytes as they are stored (a TEXT cast to a BLOB is its bytes), for the API to send.
    txnBytes: db.prepare<[bigint], Buffer>('SELECT CAST(json AS BLOB) FROM transactions WHERE version = ?').pluck(),
    // A page of an account's transactions and a block with its transactions, each as one row of
    // `joined` columns (one statement, so one snapshot: never a pruned half of a block).
    accountPage: db
      .prepare<[string, bigint, bigint], JoinedRow>(
        `SELECT ${joined('sequence_number', ']')} FROM (SELECT sequence_number, json FROM transactions WHERE sender = ? AND sequence_number BETWEEN ? AND ? ORDER BY sequence_number)`,
      )
      .raw(),
    // The page of the latest `limit` from the account's next sequence number, saturating at the
    // smallest key: `floor` is that key + `limit`, so the subtraction never leaves the 64 bits.
    latestAccountPage: db
      .prepare<[{ address: string; limit: bigint; floor: bigint }], JoinedRow>(
        `SELECT ${joined('sequence_number', ']')}
         FROM (SELECT t.sequence_number, t.json FROM accounts a JOIN transactions t
               ON t.sender = a.address AND t.sequence_number >= max(a.next_sequence_number, @floor) - @limit AND t.sequence_number < a.next_sequence_number
               WHERE a.address = @address ORDER BY t.sequence_number)`,
      )
      .raw(),
    // LEFT JOIN: a block whose transactions are all gone is still found, with none.
    blockPage: db
      .prepare<[bigint], BlockPageRow>(
        `SELECT block_hash, block_timestamp, first_version, last_version, ${joined('version', ']}')}
         FROM (SELECT b.block_hash, b.block_timestamp, b.first_version, b.last_version, t.version, t.json
               FROM blocks b LEFT JOIN transactions t ON t.version BETWEEN b.first_version AND b.last_version WHERE b.block_height = ? ORDER BY t.version)`,
      )
      .raw(),
    // Changes when another connection commits (not this one): what the caches are checked against.
    dataVersion: db.prepare<[], bigint>('PRAGMA data_version').pluck(),
    nextSeq: db.prepare<[string], bigint>('SELECT next_sequence_number FROM accounts WHERE address = ?').pluck(),
    // Heights and versions rise together, so the first block in height order that reaches
    // `version` is where pruning stops; the scan is O(pruned blocks).
    firstKept: db.prepare<[bigint], BlockRow>('SELECT * FROM blocks WHERE last_version >= ? ORDER BY block_height LIMIT 1'),
    insertBlock: db.prepare<[bigint, string, string, bigint, bigint, string]>(
      'INSERT INTO blocks (block_height, block_hash, block_timestamp, first_version, last_version, epoch) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    insertTxn: db.prepare<[bigint, string | null, bigint | null, Uint8Array]>('INSERT INTO transactions (version, sender, sequence_number, json) VALUES (?, ?, ?, ?)'),
    // OR FAIL, not the default ABORT: a multi-row ABORT insert undoes its own earlier rows when a
    // later one fails, so SQLite copies every page the statement touches into a statement
    // journal first (the account index's pages, all over it). FAIL keeps those rows instead,
    // which changes nothing here: a write that fails rolls back the whole batch's transaction.
    insertTxns: db.prepare<unknown[]>(`INSERT OR FAIL INTO transactions (version, sender, sequence_number, json) VALUES ${Array.from({ length: INSERT_ROWS }, () => '(?, ?, ?, ?)').join(', ')}`),
    upsertAccount: db.prepare<[string, bigint]>(
      'INSERT INTO accounts (address, next_sequence_number) VALUES (?, ?) ON CONFLICT (address) DO UPDATE SET next_sequence_number = excluded.next_sequence_number',
    ),
    pruneTxns: db.prepare<[bigint]>('DELETE FROM transactions WHERE version < ?'),
    pruneBlocks: db.prepare<[bigint]>('DELETE FROM blocks WHERE block_height < ?'),
  }
}
