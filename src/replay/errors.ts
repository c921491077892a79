import { LedgerGasError } from '../core/errors.js'

/** A `--strategies` entry could not be understood; the message names the entry and the key. */
export class InvalidStrategyError extends LedgerGasError {
  /** The offending strategy spec as written. */
  readonly spec: string
  constructor(spec: string, message: string) {
    super('invalid_strategy', `strategy '${spec}': ${message}`)
    this.spec = spec
  }
}
