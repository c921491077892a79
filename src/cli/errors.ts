import { LedgerGasError } from '../core/errors.js'

/** The command line was wrong (unknown flag, missing value, unreadable path): exit code 2. */
export class UsageError extends LedgerGasError {
  constructor(message: string) {
    super('usage', message)
  }
}

/** A long-running command was stopped by SIGINT/SIGTERM before the end of its input: exit code 1. */
export class InterruptedError extends LedgerGasError {
  constructor(message: string) {
    super('interrupted', message)
  }
}
