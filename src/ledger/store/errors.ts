import { InvalidBlockError, LedgerGasError } from '../../core/errors.js'

/**
 * The stable codes of the ledger layer's errors (`LedgerGasError.code`), one per failure mode:
 * a line of a data file (`InvalidDataError`), a block that does not follow the ledger
 * (`LedgerContinuityError`), a database that is not a usable ledger or cannot be reached now
 * (`LedgerDatabaseError`, `LedgerUnavailableError`).
 */
export type LedgerErrorCode = 'invalid_data' | 'ledger_continuity' | 'invalid_database' | 'ledger_unavailable'

/**
 * A line of a data file could not be used. The message names the file, the 1-based line and the
 * field, e.g. `chain.jsonl:12: transactions[3].gas_unit_price: must be a u64 …`; each part is
 * also a field of its own, and `cause` is the error the line gave, if any.
 */
export class InvalidDataError extends LedgerGasError {
  declare readonly code: 'invalid_data'
  readonly file: string
  readonly line: number
  readonly field: string
  /** What is wrong with the field, naming the bad value: the message after `file:line: field: `. */
  readonly detail: string
  constructor(file: string, line: number, field: string, detail: string, options?: { cause?: unknown }) {
    super('invalid_data', `${file}:${line}: ${field}: ${detail}`, options)
    this.file = file
    this.line = line
    this.field = field
    this.detail = detail
  }

  /**
   * Wraps an error thrown while using one line. An error that names a block and a field
   * (`InvalidBlockError`, `BlockContinuityError`) keeps them: `file:line: field: block N: detail`.
   */
  static at(file: string, line: number, error: unknown): InvalidDataError {
    if (error instanceof InvalidDataError) return error
    if (error instanceof InvalidBlockError || error instanceof BlockContinuityError) {
      return new InvalidDataError(file, line, error.field, `block ${error.block}: ${error.detail}`, { cause: error })
    }
    const message = error instanceof Error ? error.message : String(error)
    return new InvalidDataError(file, line, '(line)', message, { cause: error })
  }
}

/** A block does not follow the ledger (gap, duplicate, version mismatch) when appended to a store. */
export class LedgerContinuityError extends LedgerGasError {
  declare readonly code: 'ledger_continuity'
  constructor(message: string) {
    super('ledger_continuity', message)
  }
}

/**
 * A block does not follow the ledger. Like `InvalidBlockError` it names the block and the field
 * (`block_height`, `first_version`, `transactions[3].sequence_number`), so a loader can report
 * `file:line:field`.
 */
export class BlockContinuityError extends LedgerContinuityError {
  readonly block: string
  readonly field: string
  /** The message without the `block N: field: ` prefix. */
  readonly detail: string
  constructor(block: string, field: string, detail: string) {
    super(`block ${block}: ${field}: ${detail}`)
    this.block = block
    this.field = field
    this.detail = detail
  }
}
