import { parseU64, type U64 } from '../../core/u64.js'
import type { BlockJson } from '../store/types.js'

/**
 * `value − 2^63` (see pg-schema.ts): u64 keys as PostgreSQL `bigint`. Encoded and decoded only
 * here; the driver returns `bigint` columns as decimal strings.
 */
const KEY_BIAS = 1n << 63n
const MAX_KEY = KEY_BIAS - 1n

/** The `bigint` key of a u64, as a decimal string parameter. */
export function toKey(value: U64): string {
  return String(BigInt(value) - KEY_BIAS)
}

/** A `bigint` key as the driver returns it (a decimal string) back to a u64. */
export function fromKey(key: string): U64 {
  return parseU64(BigInt(key) + KEY_BIAS) as U64
}

/** The keys of `from .. from + count − 1`, the end clamped at 2^64−1: parameters of a `BETWEEN`. */
export function keyRange(from: U64, count: number): [string, string] {
  const first = BigInt(from) - KEY_BIAS
  const last = first + BigInt(Math.ceil(count)) - 1n
  return [String(first), String(last < MAX_KEY ? last : MAX_KEY)]
}

/** The store's statements; each is one statement, so one snapshot (reads) or one transaction (writes). */
export const SQL = {
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
  // A block and its transactions in one snapshot: never a pruned half.
  block: `SELECT b.block_height, b.block_hash, b.block_timestamp::text AS block_timestamp, b.first_version, b.last_version,
            CASE WHEN $2 THEN (SELECT string_agg(t.json, ',' ORDER BY t.version) FROM transactions t WHERE t.version BETWEEN b.first_version AND b.last_version) END AS txns
          FROM blocks b WHERE b.block_height = $1`,
  // The catch-up's range read (`parsedBlocks`): the blocks of heights $1..$2 with their
  // transactions, in one snapshot; after the first block found, only those whose last version
  // stays within $3 transactions of its first version (versions rise with heights: a prefix).
  blockRange: `SELECT b.block_height, b.block_hash, b.block_timestamp::text AS block_timestamp, b.first_version, b.last_version,
            (SELECT string_agg(t.json, ',' ORDER BY t.version) FROM transactions t WHERE t.version BETWEEN b.first_version AND b.last_version) AS txns
          FROM blocks b, (SELECT block_height, first_version FROM blocks WHERE block_height BETWEEN $1 AND $2 ORDER BY block_height LIMIT 1) s
          WHERE b.block_height BETWEEN $1 AND $2 AND (b.block_height = s.block_height OR b.last_version - s.first_version < $3)
          ORDER BY b.block_height`,
  // The same with its transactions counted, for the bytes the API sends (`blockBytesByHeight`).
  blockCounted: `SELECT b.block_height, b.block_hash, b.block_timestamp::text AS block_timestamp, b.first_version, b.last_version, t.txns, t.n
          FROM blocks b, LATERAL (SELECT string_agg(json, ',' ORDER BY version) AS txns, count(*) AS n
                                  FROM transactions WHERE version BETWEEN b.first_version AND b.last_version) t
          WHERE b.block_height = $1`,
  // A batch's rows go in by COPY (pg-copy.ts), inside one transaction with the statement below.
  copyBlocks: 'COPY blocks (block_height, block_hash, block_timestamp, first_version, last_version, epoch) FROM STDIN',
  copyTransactions: 'COPY transactions (version, sender, sequence_number, json) FROM STDIN',
  // The senders' next sequence numbers of a batch, and the notification that goes out when the
  // batch commits. Arrays travel as joined text (no address or key holds a comma), which spares
  // the driver's array escaping.
  appendAccounts: `WITH a AS (
      INSERT INTO accounts (address, next_sequence_number)
      SELECT * FROM unnest(string_to_array($1, ','), string_to_array($2, ',')::bigint[])
      ON CONFLICT (address) DO UPDATE SET next_sequence_number = excluded.next_sequence_number
    )
    SELECT pg_notify($3, $4)`,
  // Heights and versions rise together: keep the first block reaching `version`, else the newest.
  prune: `WITH keep AS (
      SELECT coalesce((SELECT block_height FROM blocks WHERE last_version >= $1 ORDER BY block_height LIMIT 1),
                      (SELECT max(block_height) FROM blocks)) AS h
    ), t AS (
      DELETE FROM transactions WHERE version < (SELECT first_version FROM blocks WHERE block_height = (SELECT h FROM keep))
    )
    DELETE FROM blocks WHERE block_height < (SELECT h FROM keep)`,
} as const

/** A row of `SQL.info`. */
export interface InfoRow {
  block_height: string
  last_version: string
  epoch: string
  block_timestamp: string
  oldest_block_height: string
  oldest_version: string
}

/** A row of `SQL.block`, `SQL.headers` and `SQL.blockRange`. */
export interface BlockRow {
  block_height: string
  block_hash: string
  block_timestamp: string
  first_version: string
  last_version: string
  /** The transactions' JSON joined with ',', when asked for. */
  txns: string | null
}

/** A row of `SQL.blockCounted`. */
export interface CountedBlockRow extends BlockRow {
  /** Transactions joined in `txns` (a `bigint`, as a decimal string). */
  n: string
}

/** A block row as the node's block JSON without `transactions` (the node omits them when not asked; BlockJson types them as required). */
export function headerOf(b: BlockRow): BlockJson {
  return {
    block_height: String(fromKey(b.block_height)),
    block_hash: b.block_hash,
    block_timestamp: b.block_timestamp,
    first_version: String(fromKey(b.first_version)),
    last_version: String(fromKey(b.last_version)),
  } as BlockJson
}
