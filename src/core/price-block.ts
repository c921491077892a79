import type { BlockInput, FullnessReason, PricedBlock } from './block.js'
import type { EstimatorConfig } from './config.js'
import { InvalidBlockError } from './errors.js'
import { nextBucket } from './next-bucket.js'
import { addU64, parseU64, type U64 } from './u64.js'

function blockName(input: BlockInput): string {
  const h = parseU64(input.block_height)
  return h === undefined ? '(unreadable height)' : String(h)
}

function u64Field(input: BlockInput, value: unknown, field: string): U64 {
  const v = parseU64(value)
  if (v === undefined) {
    throw new InvalidBlockError(blockName(input), field, `must be a u64 (0..2^64-1), got ${describe(value)}`)
  }
  return v
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`
  if (value === undefined) return 'nothing (missing)'
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

function arrayField(input: BlockInput, value: unknown, field: string, length: number): ArrayLike<unknown> | null {
  if (value === undefined || value === null) return null
  const a = value as ArrayLike<unknown>
  if (typeof a !== 'object' || typeof a.length !== 'number') {
    throw new InvalidBlockError(blockName(input), field, 'must be an array')
  }
  if (a.length !== length) {
    throw new InvalidBlockError(blockName(input), field, `has ${a.length} entries but gas_unit_prices has ${length}`)
  }
  return a
}

/**
 * Summarises one block as the Aptos node's `block_min_inclusion_price` does, validating it on
 * the way. Fullness, first matching rule: no user txns → not full; (AIP-68, with
 * `incorporate_reordering_effects`) one contract targeted by more than half the user txns → not
 * full; user txns >= `full_block_txns` → full; the block's end info present (and `apply_block_end_info`) → full iff a gas or
 * output limit was reached; a `block_gas_limit` configured → full iff summed gas used >= it;
 * otherwise not full. O(txns), no allocation beyond the result.
 *
 * @throws InvalidBlockError naming the block and the field.
 * @example priceBlock({ block_height: 1, epoch: 1, gas_unit_prices: Array(250).fill(100) }, resolveConfig()).min_inclusion_price // 150
 */
export function priceBlock(input: BlockInput, config: EstimatorConfig): PricedBlock {
  if (input === null || typeof input !== 'object') throw new InvalidBlockError('(not an object)', '(root)', 'block must be an object')
  const block_height = u64Field(input, input.block_height, 'block_height')
  const epoch = u64Field(input, input.epoch, 'epoch')
  const prices = input.gas_unit_prices
  if (prices === null || typeof prices !== 'object' || typeof prices.length !== 'number') {
    throw new InvalidBlockError(String(block_height), 'gas_unit_prices', 'must be an array of u64')
  }
  const n = prices.length
  const used = arrayField(input, input.gas_used, 'gas_used', n)
  const contracts = arrayField(input, input.contract_addresses, 'contract_addresses', n)

  // Fast path: prices and gas below 2^32 are checked with one `>>> 0` each (an integer in
  // [0, 2^32) is the only double equal to its uint32 conversion); anything else (larger,
  // bigint, invalid) takes the exact path. n < 2^21 keeps the fast gas sum below 2^53.
  let cheapest: U64 | null = null
  let minNum = Infinity
  let gasNum = 0
  let gasBig: U64 | null = null
  const fastGas = used !== null && n < 2 ** 21
  let i = 0
  if (fastGas) {
    // One pass over both arrays while every value is a uint32 double; leaves at the first
    // value that is not, and the exact loops below carry on from there.
    const g = used as ArrayLike<unknown>
    for (; i < n; i++) {
      const p = prices[i]
      const q = g[i]
      if (typeof p !== 'number' || p >>> 0 !== p || typeof q !== 'number' || q >>> 0 !== q) break
      if (p < minNum) minNum = p
      gasNum += q
    }
  }
  for (let j = i; j < n; j++) {
    const p = prices[j]
    if (typeof p === 'number' && p >>> 0 === p) {
      if (p < minNum) minNum = p
    } else {
      const exact = u64Field(input, p, `gas_unit_prices[${j}]`)
      if (cheapest === null || exact < cheapest) cheapest = exact
    }
  }
  if (fastGas) {
    for (let j = i; j < n; j++) {
      const g = (used as ArrayLike<unknown>)[j]
      if (typeof g === 'number' && g >>> 0 === g) gasNum += g
      else {
        const exact = u64Field(input, g, `gas_used[${j}]`)
        const sum = addU64(gasBig ?? 0, exact)
        if (sum === undefined) throw new InvalidBlockError(String(block_height), `gas_used[${j}]`, 'block gas sum overflows u64')
        gasBig = sum
      }
    }
    if (gasBig !== null) {
      const total = addU64(gasBig, gasNum)
      if (total === undefined) throw new InvalidBlockError(String(block_height), 'gas_used', 'block gas sum overflows u64')
      gasBig = total
    }
  } else if (used !== null) {
    gasBig = 0
    for (let i = 0; i < n; i++) {
      const sum: U64 | undefined = addU64(gasBig as U64, u64Field(input, used[i], `gas_used[${i}]`))
      if (sum === undefined) throw new InvalidBlockError(String(block_height), `gas_used[${i}]`, 'block gas sum overflows u64')
      gasBig = sum
    }
  }
  if (minNum !== Infinity && (cheapest === null || minNum < cheapest)) cheapest = minNum
  const gas_used: U64 = gasBig ?? gasNum

  let majority = false
  if (contracts !== null && config.incorporate_reordering_effects && n > 0) {
    majority = hasMajorityContract(contracts, n, input)
  }

  const endInfo = input.block_end_info
  if (endInfo !== undefined && endInfo !== null) {
    if (typeof endInfo !== 'object') throw new InvalidBlockError(String(block_height), 'block_end_info', 'must be an object or null')
    for (const k of ['block_gas_limit_reached', 'block_output_limit_reached'] as const) {
      if (typeof endInfo[k] !== 'boolean') {
        throw new InvalidBlockError(String(block_height), `block_end_info.${k}`, `must be true or false, got ${describe(endInfo[k])}`)
      }
    }
  }

  let full: boolean
  let reason: FullnessReason
  if (n === 0) {
    full = false
    reason = 'no_user_txns'
  } else if (majority) {
    full = false
    reason = 'majority_contract'
  } else if (n >= config.full_block_txns) {
    full = true
    reason = 'full_block_txns'
  } else if (endInfo && config.apply_block_end_info) {
    full = endInfo.block_gas_limit_reached || endInfo.block_output_limit_reached
    reason = 'block_end_info'
  } else if (config.block_gas_limit !== null) {
    full = gas_used >= config.block_gas_limit
    reason = 'block_gas_limit'
  } else {
    full = false
    reason = 'under_capacity'
  }
  const min_inclusion_price = full ? nextBucket(cheapest as U64, config.buckets) : config.min_gas_unit_price
  return { block_height, epoch, user_txns: n, gas_used, cheapest_gas_unit_price: cheapest, full, reason, min_inclusion_price }
}

/**
 * True when one contract address is the target of more than half of the `n` user transactions.
 * Boyer–Moore majority vote (O(n), no allocation): only a strict majority can survive the vote,
 * and a second pass confirms it. `null` entries (framework, scripts, others) vote for nobody.
 */
function hasMajorityContract(contracts: ArrayLike<unknown>, n: number, input: BlockInput): boolean {
  let candidate: string | null = null
  let votes = 0
  for (let i = 0; i < n; i++) {
    const c = contracts[i]
    if (c !== null && typeof c !== 'string') {
      throw new InvalidBlockError(blockName(input), `contract_addresses[${i}]`, `must be a string or null, got ${describe(c)}`)
    }
    if (votes === 0) {
      candidate = c
      votes = 1
    } else if (c === candidate) votes++
    else votes--
  }
  if (candidate === null) return false
  let count = 0
  for (let i = 0; i < n; i++) if (contracts[i] === candidate) count++
  return count * 2 > n
}
