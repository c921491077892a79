import { LedgerDatabaseError } from '../store/database-error.js'
import type { PgTarget } from './pg-target.js'

/**
 * Thrown by the driver's password callback when the server asks for a password and neither the
 * URL nor `PGPASSWORD` has one. Without it the driver sends no answer: SCRAM fails with "client
 * password must be a string" and the server keeps the socket until its `authentication_timeout`
 * (60 s by default), which kept a failed `ingest` alive for a minute.
 */
export class NoPasswordError extends Error {
  readonly user: string
  readonly host: string

  constructor(user: string, host: string) {
    super(`no password for ${user}@${host} (set PGPASSWORD or put it in the URL)`)
    this.user = user
    this.host = host
  }
}

/** Where the URL points, for messages: user, host and port, database, as the driver resolves them from the URL and the libpq variables. */
function endpoint(target: PgTarget): { user: string; host: string; port: string; database: string } {
  let u: URL | undefined
  try {
    u = new URL(target.url)
  } catch {
    u = undefined
  }
  const env = process.env
  const user = decodeURIComponent(u?.username ?? '') || env.PGUSER || env.USER || 'postgres'
  const host = u?.hostname || env.PGHOST || 'localhost'
  const port = u?.port || env.PGPORT || '5432'
  const database = decodeURIComponent((u?.pathname ?? '').replace(/^\//, '')) || env.PGDATABASE || user
  return { user, host, port, database }
}

/** The driver's error code and message, and those of the errors it aggregates (a host with several addresses). */
function facts(error: unknown): { codes: string[]; message: string } {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown }
  const codes = typeof e.code === 'string' ? [e.code] : []
  if (Array.isArray(e.errors)) for (const inner of e.errors) codes.push(...facts(inner).codes)
  if (e.cause !== undefined && e.cause !== error) codes.push(...facts(e.cause).codes)
  return { codes, message: typeof e.message === 'string' ? e.message : String(error) }
}

/**
 * A failure to open a connection to the ledger's server, as one line that says what to do:
 * no password, a wrong one, a database or host that does not exist, nothing listening, TLS
 * required or not offered, the connect timeout. Anything else keeps the driver's message.
 * Every case is something the command line or the server's setup must fix, so each is a
 * `LedgerDatabaseError` (exit 2); the driver's error is its `cause`.
 */
export function connectError(error: unknown, target: PgTarget): LedgerDatabaseError {
  const { user, host, port, database } = endpoint(target)
  const { codes, message } = facts(error)
  const has = (code: string) => codes.includes(code)
  let what: string
  if (error instanceof NoPasswordError) what = error.message
  else if (/client password must be a (non-empty )?string/i.test(message)) what = new NoPasswordError(user, host).message
  else if (has('28P01')) what = `password authentication failed for ${user}@${host} (check the password in the URL or PGPASSWORD)`
  else if (has('3D000')) what = `database ${database} does not exist on ${host}:${port} (create it, or fix the URL's path)`
  else if (has('28000') && /no encryption|SSL off/i.test(message)) what = `${host}:${port} requires TLS for ${user} (add ?sslmode=require to the URL)`
  else if (/server does not support SSL/i.test(message)) what = `${host}:${port} does not offer TLS (drop sslmode from the URL, or enable ssl on the server)`
  else if (has('ENOTFOUND') || has('EAI_AGAIN') || has('EAI_NONAME')) what = `host ${host} not found (check the URL's host name)`
  else if (has('ECONNREFUSED')) what = `nothing accepts connections at ${host}:${port} (is PostgreSQL running there, on that port?)`
  else if (/timeout exceeded when trying to connect|connection timeout/i.test(message) || has('ETIMEDOUT')) what = `${host}:${port} did not answer in time (is the host reachable, the port open?)`
  else what = message.split('\n')[0] ?? message
  return new LedgerDatabaseError(`cannot connect to PostgreSQL ledger ${target.shown}: ${what}`, { cause: error })
}
