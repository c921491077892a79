/**
 * A plain, obviously-correct reference of the Aptos estimator for differential tests and the
 * benchmark: it keeps every block, prices blocks with its own code in bigint, and per query walks
 * back from the newest block and re-sorts each window, as api/src/context.rs does.
 */
export interface RefConfig {
  enabled: boolean
  static_override: { low: bigint; market: bigint; aggressive: bigint } | null
  full_block_txns: number
  low_block_history: number
  market_block_history: number
  aggressive_block_history: number
  min_gas_unit_price: bigint
  buckets: bigint[]
  block_gas_limit: bigint | null
  incorporate_reordering_effects: boolean
  skip_newest_block: boolean
  keep_history_across_epochs: boolean
  apply_block_end_info: boolean
}

export interface RefBlock {
  height: bigint
  epoch: bigint
  prices: bigint[]
  gasUsed: bigint[]
  contracts: (string | null)[]
  endInfo: { block_gas_limit_reached: boolean; block_output_limit_reached: boolean } | null
}

export function refNextBucket(p: bigint, buckets: bigint[]): bigint {
  for (const b of buckets) if (b > p) return b
  return p
}

export function refBlockPrice(b: RefBlock, c: RefConfig): bigint {
  const n = b.prices.length
  if (n === 0) return c.min_gas_unit_price
  if (c.incorporate_reordering_effects) {
    const counts = new Map<string, number>()
    for (const a of b.contracts) if (a !== null) counts.set(a, (counts.get(a) ?? 0) + 1)
    for (const v of counts.values()) if (v / n > 0.5) return c.min_gas_unit_price
  }
  let full: boolean
  if (n >= c.full_block_txns) full = true
  else if (b.endInfo !== null && c.apply_block_end_info) full = b.endInfo.block_gas_limit_reached || b.endInfo.block_output_limit_reached
  else if (c.block_gas_limit !== null) full = b.gasUsed.reduce((s, g) => s + g, 0n) >= c.block_gas_limit
  else full = false
  if (!full) return c.min_gas_unit_price
  const cheapest = b.prices.reduce((m, p) => (p < m ? p : m))
  return refNextBucket(cheapest, c.buckets)
}

export interface RefEstimate {
  deprioritized_gas_estimate: bigint
  gas_estimate: bigint
  prioritized_gas_estimate: bigint
}

/** Window ranks as percentiles (Aptos: 0, 50, 90), written as the plain formula floor(len·pct/100) capped at len − 1. */
export interface RefPercentiles {
  low: number
  market: number
  aggressive: number
}

const at = (sorted: bigint[], pct: number): bigint => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * pct) / 100))]!

export function refEstimate(blocks: RefBlock[], c: RefConfig, pct: RefPercentiles = { low: 0, market: 50, aggressive: 90 }): RefEstimate {
  const min = c.min_gas_unit_price
  const fallback = { deprioritized_gas_estimate: min, gas_estimate: min, prioritized_gas_estimate: refNextBucket(min, c.buckets) }
  if (!c.enabled) return fallback
  if (c.static_override) {
    const o = c.static_override
    return { deprioritized_gas_estimate: o.low, gas_estimate: o.market, prioritized_gas_estimate: o.aggressive }
  }
  if (blocks.length === 0) return fallback
  const newest = blocks[blocks.length - 1]!
  const prices: bigint[] = []
  let i = blocks.length - 1 - (c.skip_newest_block ? 1 : 0)
  for (; i >= 0 && prices.length < c.aggressive_block_history; i--) {
    const b = blocks[i]!
    if (!c.keep_history_across_epochs && b.epoch !== newest.epoch) break
    prices.push(refBlockPrice(b, c))
  }
  if (prices.length === 0) return fallback
  const sorted = (xs: bigint[]) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const low = at(sorted(prices.slice(0, c.low_block_history)), pct.low)
  const m = at(sorted(prices.slice(0, c.market_block_history)), pct.market)
  const market = m > low ? m : low
  const a = at(sorted(prices), pct.aggressive)
  const p90 = a > market ? a : market
  return { deprioritized_gas_estimate: low, gas_estimate: market, prioritized_gas_estimate: refNextBucket(p90, c.buckets) }
}
