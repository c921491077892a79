import { LedgerGasError } from '../../core/errors.js'

/**
 * A database is not a ledger this build can use: not SQLite, a PostgreSQL database holding
 * someone else's tables, no ledger schema, another chain or schema version. Nothing was written.
 */
export class LedgerDatabaseError extends LedgerGasError {
  declare readonly code: 'invalid_database'
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_database', message, options)
  }
}

/**
 * The ledger database cannot be reached now (connection refused or lost, server shutting down).
 * A read API answers 503 and retries on the next request; nothing is wrong with the ledger.
 */
export class LedgerUnavailableError extends LedgerGasError {
  declare readonly code: 'ledger_unavailable'
  constructor(message: string, options?: { cause?: unknown }) {
    super('ledger_unavailable', message, options)
  }
}
