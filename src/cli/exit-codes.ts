import { InvalidConfigError, LedgerGasError } from '../core/errors.js'
import { UsageError } from './errors.js'

/** Exit codes of the `ledger-gas` command. The one place an error becomes an exit code. */
export const EXIT = { ok: 0, badData: 1, usage: 2 } as const

/** Exit code for an error thrown by a command: usage and configuration → 2, bad data and anything else → 1. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError || error instanceof InvalidConfigError) return EXIT.usage
  if (error instanceof LedgerGasError) return EXIT.badData
  return EXIT.badData
}
