import type pg from 'pg'
import { LedgerDatabaseError, LedgerUnavailableError } from '../store/database-error.js'
import { requirePeer } from '../optional-peer.js'
import { NoPasswordError } from './pg-connect-error.js'
import type { PgTarget } from './pg-target.js'

export type { PgTarget }

/**
 * The `pg` driver, loaded on first use: it is an optional peer, so the engine installs without it.
 *
 * As it loads, `pg` asks whether it runs in a Cloudflare Worker. Where there is no `navigator`
 * global (Node 20), it asks by building a fetch `Response`, which loads Node's whole fetch
 * implementation into a process that never fetches, on every replica's and writer's startup.
 * For that load only, a `navigator` whose `userAgent` is the one Node 21 and later define gives
 * the same answer (not a Worker) without it; the global is removed again at once. Later calls
 * get the module `require` already holds.
 */
export function pgDriver(): typeof pg {
  const scope = globalThis as { navigator?: unknown }
  const lent = !('navigator' in scope)
  if (lent) Object.defineProperty(scope, 'navigator', { value: { userAgent: `Node.js/${process.versions.node.split('.')[0]}` }, configurable: true, writable: true })
  try {
    return requirePeer<typeof pg>('pg', 'a PostgreSQL ledger')
  } finally {
    if (lent) delete scope.navigator
  }
}

/** True for a `postgres://` or `postgresql://` URL: what `--db` takes as a PostgreSQL ledger. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db)
}

/** `url` without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password !== '') u.password = '***'
    return u.toString()
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@')
  }
}

/** A PostgreSQL identifier this store accepts as a schema name (no quoting needed anywhere). */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/


/**
 * Reads a ledger URL: `postgres://user:password@host:port/database[?schema=name]`.
 *
 * @throws LedgerDatabaseError for a URL that does not parse or a schema name that is not a plain identifier.
 */
export function parsePgTarget(url: string, schema?: string): PgTarget {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch (error) {
    throw new LedgerDatabaseError(`${redactUrl(url)} is not a PostgreSQL URL: ${(error as Error).message}`, { cause: error })
  }
  const chosen = schema ?? parsed.searchParams.get('schema') ?? undefined
  if (chosen !== undefined && !SCHEMA_NAME.test(chosen)) {
    throw new LedgerDatabaseError(`${redactUrl(url)}: schema ${JSON.stringify(chosen)} must be a lowercase identifier (a-z, 0-9, _; at most 63)`)
  }
  return { url, shown: redactUrl(url), schema: chosen }
}

/** Node socket errors that mean the server cannot be reached now. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED'])

/**
 * True when `error` says the server is out of reach rather than that a statement was wrong:
 * socket errors, the driver's lost-connection and connect-timeout errors, and the SQLSTATE
 * classes 08 (connection exception), 57P (server shutting down or starting) and 53 (out of
 * connections or resources).
 */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const e = error as { code?: unknown; message?: unknown; errors?: unknown }
  const code = typeof e.code === 'string' ? e.code : ''
  if (SOCKET_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || code.startsWith('53')) return true
  // An AggregateError from a host with several addresses (IPv4 and IPv6).
  if (Array.isArray(e.errors) && e.errors.some(isConnectionError)) return true
  const message = typeof e.message === 'string' ? e.message : ''
  return /Connection terminated|timeout exceeded when trying to connect|connection error|Client was closed|not queryable|Cannot use a pool after calling end/i.test(message)
}

/** `error` as a `LedgerUnavailableError` when it is a connection failure; unchanged otherwise. */
export function asUnavailable(error: unknown, shown: string): unknown {
  if (error instanceof LedgerUnavailableError || !isConnectionError(error)) return error
  return new LedgerUnavailableError(`PostgreSQL ledger ${shown} is unreachable: ${(error as Error).message || (error as { code?: string }).code}`, { cause: error })
}

/** Connection settings shared by the pool, the writer and the watcher. */
export interface ConnectOptions {
  /** Set `default_transaction_read_only`, so nothing this connection runs can write. */
  readonly: boolean
  /** How long to wait for a connection (ms). */
  connectTimeoutMs: number
  /** Server-side `statement_timeout` (ms): a statement running longer is cancelled and frees its connection. */
  statementTimeoutMs?: number | undefined
}

/** The driver configuration for `target`: the schema as `search_path`, read-only and a statement timeout when asked, a connect timeout. */
export function clientConfig(target: PgTarget, options: ConnectOptions): pg.ClientConfig {
  const settings: string[] = []
  if (target.schema !== undefined) settings.push(`-c search_path=${target.schema}`)
  if (options.readonly) settings.push('-c default_transaction_read_only=on')
  if (options.statementTimeoutMs !== undefined) settings.push(`-c statement_timeout=${options.statementTimeoutMs}`)
  const config: pg.ClientConfig = {
    connectionString: target.url,
    connectionTimeoutMillis: options.connectTimeoutMs,
    application_name: 'ledger-gas',
    keepAlive: true,
  }
  if (settings.length > 0) config.options = settings.join(' ')
  // Called only when the server asks for a password and the URL has none (the URL's wins):
  // PGPASSWORD, else a clear refusal; the driver would send nothing and wait out the server's
  // authentication timeout.
  config.password = (params?: { user?: string; host?: string; password?: unknown }) => {
    const given = process.env.PGPASSWORD
    if (given === undefined || given === '') throw new NoPasswordError(params?.user ?? '(default user)', params?.host ?? 'localhost')
    return given
  }
  return config
}
