import { InvalidConfigError } from './errors.js'
import { DEFAULT_BUCKETS } from './next-bucket.js'
import { parseU64, type U64 } from './u64.js'

/** Three fixed estimates returned verbatim (Aptos `GasEstimationStaticOverride`). */
export interface StaticOverride {
  low: U64
  market: U64
  aggressive: U64
}

/**
 * Estimator configuration after defaults are applied. Keys use the Aptos names
 * (config/src/config/gas_estimation_config.rs) plus the values Aptos reads from elsewhere.
 */
export interface EstimatorConfig {
  /** `false` → always the default estimate `{min, min, next_bucket(min)}`. Default `true`. */
  enabled: boolean
  /** When set, returned as the estimate verbatim. Default `null`. */
  static_override: StaticOverride | null
  /** A block with at least this many user transactions is full. Aptos default 250. */
  full_block_txns: number
  /** Blocks used for the deprioritized (low) estimate. Aptos default 10. */
  low_block_history: number
  /** Blocks used for the regular (market) estimate. Aptos default 30. */
  market_block_history: number
  /** Blocks used for the prioritized (aggressive) estimate; also the history kept. Aptos default 120. */
  aggressive_block_history: number
  /** On-chain `min_price_per_gas_unit`; mainnet 100. The floor of standard transactions. */
  min_gas_unit_price: U64
  /** Floor of encrypted transactions (Aptos gas schedule v1.47 `encrypted_txn_min_price_per_gas_unit`). Default 200. */
  encrypted_txn_min_price_per_gas_unit: U64
  /** Floor of high-limit transactions (Aptos gas schedule v1.47 `high_limit_txn_min_price_per_gas_unit`). Default 1,000. */
  high_limit_txn_min_price_per_gas_unit: U64
  /** Mempool broadcast buckets, strictly ascending. Aptos `DEFAULT_BUCKETS`. */
  buckets: readonly U64[]
  /** Block gas limit of the execution config, or `null` when none. Default `null`. */
  block_gas_limit: U64 | null
  /** AIP-68: a block where one contract has more than half the user txns is not full. Default `true`. */
  incorporate_reordering_effects: boolean
  /** Leave the newest (possibly partial) block out of the estimate, as Aptos does. Default `true`. */
  skip_newest_block: boolean
  /** Keep block history across an epoch change (Aptos drops it). Default `false`. */
  keep_history_across_epochs: boolean
  /**
   * Judge fullness by the block epilogue's `block_end_info` when the block carries it (rule 4).
   * Default `true`. `false` reproduces the Aptos node as deployed, which never reads the end
   * info (aptos-core#19880, left unfixed).
   */
  apply_block_end_info: boolean
}

/** What a caller may pass: any subset of the keys; numbers, decimal strings or bigints for u64. */
export type EstimatorConfigInput = {
  [K in keyof EstimatorConfig]?: K extends 'static_override'
    ? { low: U64 | string; market: U64 | string; aggressive: U64 | string } | null
    : K extends 'min_gas_unit_price' | 'encrypted_txn_min_price_per_gas_unit' | 'high_limit_txn_min_price_per_gas_unit'
      ? U64 | string
      : K extends 'block_gas_limit'
        ? U64 | string | null
        : K extends 'buckets'
          ? readonly (U64 | string)[]
          : EstimatorConfig[K]
}

/** The Aptos node's defaults. */
export const DEFAULT_CONFIG: Readonly<EstimatorConfig> = Object.freeze({
  enabled: true,
  static_override: null,
  full_block_txns: 250,
  low_block_history: 10,
  market_block_history: 30,
  aggressive_block_history: 120,
  min_gas_unit_price: 100,
  encrypted_txn_min_price_per_gas_unit: 200,
  high_limit_txn_min_price_per_gas_unit: 1000,
  buckets: DEFAULT_BUCKETS,
  block_gas_limit: null,
  incorporate_reordering_effects: true,
  skip_newest_block: true,
  keep_history_across_epochs: false,
  apply_block_end_info: true,
})

const KEYS = new Set(Object.keys(DEFAULT_CONFIG))

/** Largest window accepted; keeps memory bounded (a window of this size uses a few MB). */
export const MAX_BLOCK_HISTORY = 1_000_000

function bool(input: Record<string, unknown>, key: keyof EstimatorConfig): boolean {
  const v = input[key] ?? DEFAULT_CONFIG[key]
  if (typeof v !== 'boolean') throw new InvalidConfigError(key, `must be true or false, got ${JSON.stringify(v)}`)
  return v
}

function count(input: Record<string, unknown>, key: keyof EstimatorConfig): number {
  const v = input[key] ?? DEFAULT_CONFIG[key]
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_BLOCK_HISTORY) {
    throw new InvalidConfigError(key, `must be an integer from 1 to ${MAX_BLOCK_HISTORY}, got ${JSON.stringify(v)}`)
  }
  return v
}

function u64(v: unknown, key: string): U64 {
  const parsed = parseU64(v)
  if (parsed === undefined) {
    throw new InvalidConfigError(key, `must be a u64 (integer 0..2^64-1, as number or decimal string), got ${String(v)}`)
  }
  return parsed
}

/**
 * Applies the defaults to `input` and checks it as the Aptos sanitizer does (low and market
 * histories at most the aggressive one, none zero) plus: buckets non-empty and strictly
 * ascending, u64 values in range, no unknown keys.
 *
 * @throws InvalidConfigError naming the key at fault.
 * @example resolveConfig({ low_block_history: 5 }).market_block_history // 30
 */
export function resolveConfig(input: EstimatorConfigInput = {}): EstimatorConfig {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new InvalidConfigError('(root)', 'must be an object')
  }
  const raw = input as Record<string, unknown>
  for (const key of Object.keys(raw)) {
    if (!KEYS.has(key)) throw new InvalidConfigError(key, 'unknown key')
  }
  const low = count(raw, 'low_block_history')
  const market = count(raw, 'market_block_history')
  const aggressive = count(raw, 'aggressive_block_history')
  if (low > aggressive) {
    throw new InvalidConfigError('low_block_history', `(${low}) must not exceed aggressive_block_history (${aggressive})`)
  }
  if (market > aggressive) {
    throw new InvalidConfigError('market_block_history', `(${market}) must not exceed aggressive_block_history (${aggressive})`)
  }
  const full = raw.full_block_txns ?? DEFAULT_CONFIG.full_block_txns
  if (typeof full !== 'number' || !Number.isInteger(full) || full < 1) {
    throw new InvalidConfigError('full_block_txns', `must be a positive integer, got ${JSON.stringify(full)}`)
  }
  const rawBuckets = raw.buckets ?? DEFAULT_CONFIG.buckets
  if (!Array.isArray(rawBuckets) || rawBuckets.length === 0) {
    throw new InvalidConfigError('buckets', 'must be a non-empty array of u64')
  }
  const buckets = rawBuckets.map((b, i) => u64(b, `buckets[${i}]`))
  for (let i = 1; i < buckets.length; i++) {
    if (!((buckets[i - 1] as U64) < (buckets[i] as U64))) {
      throw new InvalidConfigError('buckets', `must be strictly ascending, but buckets[${i - 1}]=${buckets[i - 1]} >= buckets[${i}]=${buckets[i]}`)
    }
  }
  const so = raw.static_override ?? null
  let static_override: StaticOverride | null = null
  if (so !== null) {
    if (typeof so !== 'object' || Array.isArray(so)) {
      throw new InvalidConfigError('static_override', 'must be an object {low, market, aggressive} or null')
    }
    const o = so as Record<string, unknown>
    for (const k of Object.keys(o)) {
      if (k !== 'low' && k !== 'market' && k !== 'aggressive') throw new InvalidConfigError(`static_override.${k}`, 'unknown key')
    }
    static_override = {
      low: u64(o.low, 'static_override.low'),
      market: u64(o.market, 'static_override.market'),
      aggressive: u64(o.aggressive, 'static_override.aggressive'),
    }
  }
  const gasLimit = raw.block_gas_limit ?? null
  return {
    enabled: bool(raw, 'enabled'),
    static_override,
    full_block_txns: full,
    low_block_history: low,
    market_block_history: market,
    aggressive_block_history: aggressive,
    min_gas_unit_price: u64(raw.min_gas_unit_price ?? DEFAULT_CONFIG.min_gas_unit_price, 'min_gas_unit_price'),
    encrypted_txn_min_price_per_gas_unit: u64(raw.encrypted_txn_min_price_per_gas_unit ?? DEFAULT_CONFIG.encrypted_txn_min_price_per_gas_unit, 'encrypted_txn_min_price_per_gas_unit'),
    high_limit_txn_min_price_per_gas_unit: u64(raw.high_limit_txn_min_price_per_gas_unit ?? DEFAULT_CONFIG.high_limit_txn_min_price_per_gas_unit, 'high_limit_txn_min_price_per_gas_unit'),
    buckets: Object.freeze(buckets),
    block_gas_limit: gasLimit === null ? null : u64(gasLimit, 'block_gas_limit'),
    incorporate_reordering_effects: bool(raw, 'incorporate_reordering_effects'),
    skip_newest_block: bool(raw, 'skip_newest_block'),
    keep_history_across_epochs: bool(raw, 'keep_history_across_epochs'),
    apply_block_end_info: bool(raw, 'apply_block_end_info'),
  }
}
