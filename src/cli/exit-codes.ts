import { LedgerGasError } from '../core/errors.js'

/** Exit codes of the `ledger-gas` command. */
export const EXIT = { ok: 0, badData: 1, usage: 2 } as const

/**
 * The exit code of each error `code` a command can end with: the one place an error becomes an
 * exit code, and the "CLI exit" column of the README's error table (a test holds them equal).
 * What the user can fix on the command line (flags, config, paths, the database named) is 2;
 * data that cannot be used, a node that fails, an interrupted run is 1.
 */
export const EXIT_BY_CODE: Readonly<Record<string, number>> = {
  invalid_config: EXIT.usage,
  invalid_block: EXIT.badData,
  invalid_data: EXIT.badData,
  ledger_continuity: EXIT.badData,
  invalid_database: EXIT.usage,
  invalid_strategy: EXIT.usage,
  node_response: EXIT.badData,
  node_unavailable: EXIT.badData,
  ledger_unavailable: EXIT.badData,
  missing_dependency: EXIT.usage,
  usage: EXIT.usage,
  interrupted: EXIT.badData,
}

/** Exit code for an error thrown by a command (see `EXIT_BY_CODE`); anything unforeseen → 1. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof LedgerGasError) return EXIT_BY_CODE[error.code] ?? EXIT.badData
  return EXIT.badData
}
