import { InvalidConfigError } from '../../core/errors.js'

/**
 * Most transactions a block may carry to be appended. Aptos validators accept at most 10,000
 * user transactions per block (`MAX_RECEIVING_BLOCK_TXNS`, config/src/config/consensus_config.rs)
 * plus a few system ones; twice that leaves room for a raised limit while refusing absurd input.
 */
export const DEFAULT_MAX_BLOCK_TRANSACTIONS = 20_000

/**
 * Longest line (one block as JSON) read from a chain file. Aptos caps a block at 6 MiB of BCS
 * (`max_receiving_block_bytes`); its JSON rendering (hex doubled, field names, events and write
 * sets) runs several times that, so 64 MiB holds any real block and bounds what one line costs.
 */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024

/** Checks a limit option: a positive safe integer. */
export function checkLimitOption(key: string, value: number): number {
  if (!(Number.isSafeInteger(value) && value >= 1)) throw new InvalidConfigError(key, `must be a positive integer, got ${value}`)
  return value
}
