import type { PricedBlock } from './block.js'
import { U64_MAX, type U64 } from './u64.js'

/**
 * The lowest gas unit price a transaction needed to enter one recorded block: `0` when the block
 * was not full (anything got in), `cheapest_gas_unit_price + 1` when it was (a transaction gets
 * into a full block only if it pays strictly more than the cheapest one included). A number
 * when safe, else a bigint; `2^64` when the cheapest paid `2^64 - 1` (nothing could beat it),
 * which is why this is not a `U64`.
 */
export type Requirement = number | bigint

/** 2^64: the requirement of a full block whose cheapest transaction paid 2^64 - 1. */
export const UNREACHABLE: Requirement = U64_MAX + 1n

/**
 * A block's requirement from its summary under the scoring config (fullness as the engine
 * judges it). O(1).
 *
 * @example blockRequirement(priceBlock(fullBlockAt100, config)) // 101
 */
export function blockRequirement(priced: PricedBlock): Requirement {
  if (!priced.full) return 0
  const c = priced.cheapest_gas_unit_price as U64
  if (typeof c === 'number' && c < Number.MAX_SAFE_INTEGER) return c + 1
  const next = BigInt(c) + 1n
  return next <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(next) : next
}

/**
 * The block's cutoff as a price a user could pay: the requirement raised to the chain's
 * `min_gas_unit_price` and capped at 2^64 - 1. This is what the report draws and what the
 * `target` strategy learns from.
 */
export function cutoffPrice(req: Requirement, floor: U64): U64 {
  // a number requirement is a safe integer, below 2^64: skip the mixed number/bigint comparison, which is slow
  if (typeof req === 'number') return (req < floor ? floor : req) as U64
  if (req > U64_MAX) return U64_MAX
  return (req < floor ? floor : req) as U64
}
