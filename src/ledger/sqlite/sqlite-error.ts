import { LedgerDatabaseError, LedgerUnavailableError } from '../store/database-error.js'

/**
 * A failed SQLite write as the error a writer acts on. `SQLITE_BUSY`/`SQLITE_LOCKED` (another
 * connection held the write lock past the busy timeout) is an outage: `LedgerUnavailableError`,
 * retried by `retryUnavailable`. `SQLITE_FULL` (the disk, or the database's page limit) is
 * not: retrying cannot make room, so it is a `LedgerDatabaseError` saying so; the transaction
 * was rolled back, so nothing of the batch is in the ledger. Anything else is returned as is.
 */
export function sqliteWriteError(error: unknown, path: string): unknown {
  const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : ''
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new LedgerUnavailableError(`${path} is locked by another connection (${code}); the write is tried again`, { cause: error })
  }
  if (code.startsWith('SQLITE_FULL')) {
    return new LedgerDatabaseError(`${path}: no room to write (${code}: the disk is full, or the database reached its page limit); the batch was rolled back and nothing of it was written; make room and run again to resume`, { cause: error })
  }
  return error
}
