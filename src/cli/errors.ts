import { LedgerGasError } from '../core/errors.js'

/** The command line was wrong (unknown flag, missing value, unreadable path): exit code 2. */
export class UsageError extends LedgerGasError {
  constructor(message: string) {
    super('usage', message)
  }
}
