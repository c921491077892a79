/**
 * Base class of every error ledger-gas throws on purpose. `code` is stable and listed in the
 * README's error table; the message names the bad value.
 *
 * @example
 * try { createEstimator({ low_block_history: 0 }) } catch (e) { if (e instanceof LedgerGasError) e.code }
 */
export class LedgerGasError extends Error {
  /** Stable machine-readable code (see the README's error table). */
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = new.target.name
    this.code = code
  }
}

/** A configuration key has a bad value; `key` names it (e.g. `market_block_history`). */
export class InvalidConfigError extends LedgerGasError {
  /** The configuration key at fault. */
  readonly key: string
  constructor(key: string, message: string) {
    super('invalid_config', `config ${key}: ${message}`)
    this.key = key
  }
}

/**
 * A block was rejected on ingest. `block` names it (its height when known, else its position)
 * and `field` the path of the bad field (e.g. `transactions[3].gas_unit_price`). The engine's
 * state is unchanged when this is thrown.
 */
export class InvalidBlockError extends LedgerGasError {
  /** The block's height as given, or `#index` when the height itself is unreadable. */
  readonly block: string
  /** Dotted path of the offending field within the block. */
  readonly field: string
  /** What is wrong with the field, naming the bad value: the message after `block N: field: `. */
  readonly detail: string
  constructor(block: string, field: string, message: string) {
    super('invalid_block', `block ${block}: ${field}: ${message}`)
    this.block = block
    this.field = field
    this.detail = message
  }
}
