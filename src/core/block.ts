import type { U64 } from './u64.js'

/**
 * The block's end info written by its block epilogue (Aptos `BlockEndInfo`); only the two flags
 * matter for fullness.
 */
export interface BlockEndInfo {
  block_gas_limit_reached: boolean
  block_output_limit_reached: boolean
}

/**
 * The compact form of a block that the engine ingests: what a caller that already has the
 * numbers passes, and what `parseBlockJson` (ledger layer) makes of a node's block JSON.
 * Arrays are per user transaction, in block order.
 *
 * @example
 * estimator.ingest({ block_height: 7, epoch: 2, gas_unit_prices: [100, 150], gas_used: [6, 9] })
 */
export interface BlockInput {
  /** Block height (u64: safe integer, bigint or decimal string). Strictly increasing across ingests. */
  block_height: U64 | string
  /** Epoch of the block (from its block metadata transaction). Non-decreasing across ingests. */
  epoch: U64 | string
  /** `gas_unit_price` of each user transaction (u64). */
  gas_unit_prices: ArrayLike<number | bigint>
  /** `gas_used` of each user transaction (u64); omitted → 0 each. Same length as the prices. */
  gas_used?: ArrayLike<number | bigint> | null | undefined
  /**
   * For each user transaction, the module address of its entry function when that address is
   * not a framework (special) address, else `null` (framework call, script, multisig, other).
   * Omitted → no transaction targets a contract. Used by the AIP-68 majority rule.
   */
  contract_addresses?: ArrayLike<string | null> | null | undefined
  /** The block epilogue's end info, when the block has one. */
  block_end_info?: BlockEndInfo | null | undefined
}

/** Why a block was judged full or not; the first rule that matched. */
export type FullnessReason =
  | 'no_user_txns'
  | 'majority_contract'
  | 'full_block_txns'
  | 'block_end_info'
  | 'block_gas_limit'
  | 'under_capacity'

/** Fullness reasons in a fixed order (the engine stores their index). */
export const FULLNESS_REASONS: readonly FullnessReason[] = Object.freeze([
  'no_user_txns',
  'majority_contract',
  'full_block_txns',
  'block_end_info',
  'block_gas_limit',
  'under_capacity',
])

/** A block summarised once on ingest: everything the estimator keeps of it. */
export interface PricedBlock {
  block_height: U64
  epoch: U64
  /** Number of user transactions. */
  user_txns: number
  /** Sum of the user transactions' `gas_used`. */
  gas_used: U64
  /** Cheapest `gas_unit_price` among the user transactions, `null` when there are none. */
  cheapest_gas_unit_price: U64 | null
  full: boolean
  reason: FullnessReason
  /** `next_bucket(cheapest)` when full, else `min_gas_unit_price`. */
  min_inclusion_price: U64
}
