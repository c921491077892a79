import { pareto, standardNormal } from './distributions.js'
import type { Rng } from './prng.js'

/** Which price habits senders follow: each picks one of the price mixes below. */
export type PriceHabit = 'calm' | 'surge' | 'busy' | 'bidding'

/**
 * Price choices, as shares: most senders take a wallet default (100 is the on-chain minimum and
 * the SDK's estimate when blocks are not full; 150 the next mempool bucket, offered as "fast"),
 * some pick a higher broadcast bucket (300, 500, 1000: Aptos `DEFAULT_BUCKETS`), some an odd
 * value between (a wallet's estimate × 1.2, a hand-typed number), and a few pay a heavy-tailed
 * premium (Pareto from 1,000, shape 1.1, capped at 2,000,000).
 */
interface PriceMix {
  min: number
  fast: number
  buckets: number
  between: number
  tail: number
}

const MIXES: Readonly<Record<Exclude<PriceHabit, 'bidding'>, PriceMix>> = Object.freeze({
  calm: { min: 0.74, fast: 0.12, buckets: 0.07, between: 0.05, tail: 0.02 },
  surge: { min: 0.45, fast: 0.25, buckets: 0.17, between: 0.09, tail: 0.04 },
  busy: { min: 0.33, fast: 0.27, buckets: 0.26, between: 0.09, tail: 0.05 },
})

/** Buckets above the defaults that senders pick by hand, most often the lower ones. */
const BUCKET_CHOICES: readonly number[] = [300, 300, 300, 500, 500, 1000]

/** In-between prices that wallets produce (estimate × 1.1–2, rounded) or users type. */
const BETWEEN_CHOICES: readonly number[] = [110, 120, 125, 180, 200, 200, 250, 400]

/**
 * Senders in the busy and congested regimes mostly bid by the market: a wallet or bot that
 * reads recent blocks and offers a price near the going rate, with no rounding to buckets.
 * Their bid is the regime's price level × e^(σZ), Z standard normal (log-normal, median the
 * level), rounded to a whole unit and never below the minimum. The rest keep the habits above:
 * a few still offer the minimum or 150, some a bucket, a few a tail premium.
 */
const BIDDING = Object.freeze({ min: 0.08, fast: 0.04, buckets: 0.05, tail: 0.03, sigma: 0.45 })

/** Highest tail price drawn; the node accepts far more, but wallets cap what users can type. */
const TAIL_CAP = 2_000_000

/** Lowest price a sender can offer: the on-chain `min_price_per_gas_unit` (mainnet 100). */
export const MIN_GAS_UNIT_PRICE = 100

/**
 * Draws one sender's `gas_unit_price` under `habit`; `level` is the going rate bidders aim at
 * (used by `bidding` only).
 *
 * @example sampleGasUnitPrice(rng, 'calm') // usually 100
 */
export function sampleGasUnitPrice(rng: Rng, habit: PriceHabit, level = MIN_GAS_UNIT_PRICE): number {
  if (habit === 'bidding') return sampleBid(rng, level)
  const mix = MIXES[habit]
  let x = rng.float()
  if ((x -= mix.min) < 0) return MIN_GAS_UNIT_PRICE
  if ((x -= mix.fast) < 0) return 150
  if ((x -= mix.buckets) < 0) return BUCKET_CHOICES[rng.int(BUCKET_CHOICES.length)] as number
  // eslint-disable-next-line no-useless-assignment -- each branch subtracts its share alike; the last x is only compared
  if ((x -= mix.between) < 0) return BETWEEN_CHOICES[rng.int(BETWEEN_CHOICES.length)] as number
  return Math.min(TAIL_CAP, Math.round(pareto(rng, 1000, 1.1)))
}

function sampleBid(rng: Rng, level: number): number {
  let x = rng.float()
  if ((x -= BIDDING.min) < 0) return MIN_GAS_UNIT_PRICE
  if ((x -= BIDDING.fast) < 0) return 150
  if ((x -= BIDDING.buckets) < 0) return BUCKET_CHOICES[rng.int(BUCKET_CHOICES.length)] as number
  // the last share is only compared (x - t < 0 exactly when x < t, so the draws are unchanged)
  if (x < BIDDING.tail) return Math.min(TAIL_CAP, Math.round(pareto(rng, 1000, 1.1)))
  return Math.max(MIN_GAS_UNIT_PRICE, Math.round(level * Math.exp(BIDDING.sigma * standardNormal(rng))))
}
