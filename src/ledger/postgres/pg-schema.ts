import type pg from 'pg'
import { LedgerDatabaseError } from '../store/database-error.js'
import { DEFAULT_CHAIN_ID } from '../store/store-options.js'

/** Version of the tables below; a database of another version is refused, never migrated silently. */
export const PG_SCHEMA_VERSION = '1'

/** `meta.application`: the marker that a schema holds a ledger-gas ledger. */
export const LEDGER_MARKER = 'ledger-gas ledger'

/**
 * The ledger's tables. u64 keys (block height, versions, sequence numbers) are `bigint` holding
 * `value − 2^63`, as in the SQLite store: every u64 fits, order is kept (so ranges, `ORDER BY`
 * and the indexes are exact up to 2^64−1), and keys stay 8-byte integers, which index and
 * compare faster than `numeric`. Values that are only echoed (epoch, block timestamp) are
 * `numeric(20,0)` checked to the u64 range, so they read as themselves in SQL. A transaction is
 * its node JSON as `text` (byte-exact; `jsonb` would reorder keys); `sender` and
 * `sequence_number` are set only on sequence-number user transactions, so the partial unique
 * index is the account index. `accounts` keeps each sender's next sequence number when its
 * transactions are pruned.
 */
const TABLES = `
CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE blocks (
  block_height bigint PRIMARY KEY,
  block_hash text NOT NULL,
  block_timestamp numeric(20,0) NOT NULL CHECK (block_timestamp BETWEEN 0 AND 18446744073709551615),
  first_version bigint NOT NULL,
  last_version bigint NOT NULL,
  epoch numeric(20,0) NOT NULL CHECK (epoch BETWEEN 0 AND 18446744073709551615)
);
CREATE TABLE transactions (version bigint PRIMARY KEY, sender text, sequence_number bigint, json text NOT NULL);
CREATE UNIQUE INDEX account_transactions ON transactions (sender, sequence_number) WHERE sender IS NOT NULL;
CREATE TABLE accounts (address text PRIMARY KEY, next_sequence_number bigint NOT NULL);
`

/** Tables, views and sequences of the current schema, by name. */
async function relations(client: pg.ClientBase): Promise<{ schema: string | null; names: string[] }> {
  const schema = (await client.query<{ s: string | null }>('SELECT current_schema() AS s')).rows[0]?.s ?? null
  if (schema === null) return { schema, names: [] }
  const rows = await client.query<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') ORDER BY c.relname`,
    [schema],
  )
  return { schema, names: rows.rows.map((r) => r.relname) }
}

/** Options of `ensureLedgerSchema`. */
export interface SchemaOptions {
  /** Never create anything: a schema without a ledger is refused. */
  readonly: boolean
  /** Chain id of a new ledger; for an existing one it must match. */
  chainId: number | undefined
}

/**
 * Checks that the current schema holds a ledger-gas ledger of this schema version and chain,
 * creating the tables when the schema is empty (and `readonly` is false). Anything else is
 * refused before a single write: a schema with other tables and no marker is someone else's.
 * Run it while holding the writer lock, so two writers cannot both create.
 *
 * @returns the ledger's chain id and the schema it lives in.
 * @throws LedgerDatabaseError naming `shown` and what is wrong.
 */
export async function ensureLedgerSchema(client: pg.ClientBase, shown: string, options: SchemaOptions): Promise<{ chainId: number; schema: string }> {
  const { schema, names } = await relations(client)
  if (schema === null) throw new LedgerDatabaseError(`${shown}: no schema to hold the ledger (search_path names none that exists)`)
  const where = `${shown} (schema ${schema})`
  if (!names.includes('meta')) {
    if (names.length > 0) {
      const listed = names.slice(0, 5).join(', ') + (names.length > 5 ? `, … (${names.length} in all)` : '')
      throw new LedgerDatabaseError(`${where} is not a ledger-gas ledger: it holds other tables (${listed}) and no ledger marker; left untouched`)
    }
    if (options.readonly) throw new LedgerDatabaseError(`${where} holds no ledger yet; create it with 'ledger-gas ingest --db …'`)
    const chainId = options.chainId ?? DEFAULT_CHAIN_ID
    await client.query('BEGIN')
    try {
      await client.query(TABLES)
      await client.query('INSERT INTO meta (key, value) VALUES ($1, $2), ($3, $4), ($5, $6)', ['application', LEDGER_MARKER, 'schema_version', PG_SCHEMA_VERSION, 'chain_id', String(chainId)])
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {})
      throw error
    }
    return { chainId, schema }
  }
  let meta: Map<string, string>
  try {
    meta = new Map((await client.query<{ key: string; value: string }>('SELECT key, value FROM meta')).rows.map((r) => [String(r.key), String(r.value)]))
  } catch (error) {
    throw new LedgerDatabaseError(`${where} is not a ledger-gas ledger: its meta table cannot be read (${(error as Error).message})`, { cause: error })
  }
  if (meta.get('application') !== LEDGER_MARKER) throw new LedgerDatabaseError(`${where} is not a ledger-gas ledger: its meta table has no ledger marker; left untouched`)
  const version = meta.get('schema_version')
  if (version !== PG_SCHEMA_VERSION) throw new LedgerDatabaseError(`${where} has ledger schema ${version ?? '(none)'}, this build reads ${PG_SCHEMA_VERSION}`)
  const stored = Number(meta.get('chain_id'))
  if (!(Number.isInteger(stored) && stored >= 0 && stored <= 255)) throw new LedgerDatabaseError(`${where} has a bad chain id ${JSON.stringify(meta.get('chain_id'))} in its meta table`)
  if (options.chainId !== undefined && options.chainId !== stored) throw new LedgerDatabaseError(`${where} holds chain id ${stored}, not ${options.chainId}`)
  return { chainId: stored, schema }
}
