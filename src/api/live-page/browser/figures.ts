/**
 * The live page's arithmetic and wording, pure (no DOM, no clock): what the page shows is
 * computed here from the API's answers and tested in Node.
 */

/** Octas in one APT (Aptos coin decimals: 8). */
export const OCTAS_PER_APT = 100_000_000

/** A block of `GET /v1/gas/history` (u64 as decimal strings). */
export interface HistoryBlock {
  block_height: string
  epoch: string
  user_txns: number
  gas_used: string
  full: boolean
  reason: string
  cheapest_gas_unit_price: string | null
  min_inclusion_price: string
}

/** The three prices of a `GasEstimation` (u64 kept as digit strings when past 2^53). */
export interface Estimation {
  deprioritized_gas_estimate: number | string
  gas_estimate: number | string
  prioritized_gas_estimate: number | string
}

/** One entry of `GET /gas-page/tiers`: both estimators as of one block. */
export interface TierPoint {
  block_height: string
  aptos: Estimation
  calibrated: Estimation
}

/** The tiers, in order, and the `GasEstimation` key of each. */
export const TIERS = ['deprioritized', 'regular', 'prioritized'] as const
export type Tier = (typeof TIERS)[number]
export const TIER_KEYS: Readonly<Record<Tier, keyof Estimation>> = { deprioritized: 'deprioritized_gas_estimate', regular: 'gas_estimate', prioritized: 'prioritized_gas_estimate' }

/**
 * JSON with every integer of 16 digits or more kept as its digit string, so u64 values past
 * 2^53 are shown exactly (the API writes some u64 as JSON integers).
 */
export function parseExact(text: string): unknown {
  return JSON.parse(text.replace(/([:[,])\s*(\d{16,})(?=\s*[,\]}])/g, '$1"$2"'))
}

/** Why a block counts as full or not, in a wallet user's words (the engine's `reason` codes). */
export function reasonInWords(reason: string): string {
  switch (reason) {
    case 'no_user_txns':
      return 'no user transactions'
    case 'majority_contract':
      return 'mostly contract calls'
    case 'full_block_txns':
      return 'as many transactions as a block holds'
    case 'block_end_info':
      return 'the chain marked it full'
    case 'block_gas_limit':
      return 'reached the block gas limit'
    case 'under_capacity':
      return 'room to spare'
    default:
      return reason.replaceAll('_', ' ')
  }
}

/** `n` with its noun, singular or plural: `plural(1, 'block')` → `1 block`. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

/** An age in words, at the coarsest unit that is at least 1: `age(95)` → `1 min`, `age(45_000_000)` → `520 days`. */
export function age(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min`
  if (s < 86_400) return plural(Math.floor(s / 3600), 'hour')
  return plural(Math.floor(s / 86_400), 'day')
}

/** A chain timestamp (µs since the Unix epoch, as a decimal string) as `YYYY-MM-DD HH:MM:SS UTC`. */
export function chainTime(timestampUsec: string): string {
  const ms = Number(BigInt(timestampUsec) / 1000n)
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

/** The freshness of the newest block: its age (s) at `nowMs`, and whether that is past `staleAfterSecs`. */
export function freshness(timestampUsec: string, nowMs: number, staleAfterSecs: number): { ageSecs: number; stale: boolean } {
  const ageSecs = Math.max(0, (nowMs - Number(BigInt(timestampUsec) / 1000n)) / 1000)
  return { ageSecs, stale: ageSecs > staleAfterSecs }
}

/** Median of `values` (the mean of the middle two for an even count); `null` for none. O(n log n). */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/**
 * Gas units of a typical transaction in the window: the median, over blocks with user
 * transactions, of the block's gas used per user transaction (the history gives per-block
 * totals, not per-transaction gas), rounded up; `null` when no block had one.
 */
export function typicalGas(blocks: readonly HistoryBlock[]): number | null {
  const perTxn = blocks.filter((b) => b.user_txns > 0).map((b) => Number(b.gas_used) / b.user_txns)
  const m = median(perTxn)
  return m === null ? null : Math.ceil(m)
}

/** What `gas` units cost at `price` octas per unit, in APT, to 8 decimals with trailing zeros cut: `aptCost(20, 100)` → `0.00002`. */
export function aptCost(gas: number, price: number | string): string {
  const octas = BigInt(gas) * BigInt(price)
  const whole = octas / BigInt(OCTAS_PER_APT)
  const frac = (octas % BigInt(OCTAS_PER_APT)).toString().padStart(8, '0').replace(/0+$/, '')
  return frac === '' ? `${whole}` : `${whole}.${frac}`
}

/** A tier's promise in words: `included within 2 blocks with p ≥ 0.9`. */
export function promiseText(k: number, q: number): string {
  return `included within ${plural(k, 'block')} with p ≥ ${q}`
}

/** How the promise held: `held 92.3% of 990 quotes`, or that none has settled yet. */
export function coverageText(coverage: { evaluated: number; rate: number | null }, floorBound: boolean): string {
  if (coverage.evaluated === 0 || coverage.rate === null) return 'no quote settled yet'
  return `held ${(100 * coverage.rate).toFixed(1)}% of ${coverage.evaluated} quotes${floorBound ? ' · floor-bound' : ''}`
}

/**
 * The window figures of a tier (`/v1/gas/inclusion` at its price, `/v1/gas/price` for its
 * promise): `window: 81.2% get in within 1 block at this price; 381 meets the promise`.
 */
export function inverseText(probability: number | null, k: number, windowPrice: number | string | null): string {
  const chance = probability === null ? 'no sample for this price' : `${(100 * probability).toFixed(1)}% get in within ${plural(k, 'block')} at this price`
  const price = windowPrice === null ? 'no price met the promise' : `${windowPrice} met the promise`
  return `window: ${chance}; ${price}`
}
