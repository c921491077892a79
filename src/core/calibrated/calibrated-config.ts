import { InvalidConfigError } from '../errors.js'

/** What a tier claims: a transaction at its price is included within `k` blocks with probability at least `q`. */
export interface TierPromise {
  k: number
  q: number
}

/** The calibrated mode's settings, after defaults. */
export interface CalibratedConfig {
  /** Promise of the deprioritized tier. Default 0.9 within 10 blocks. */
  deprioritized: TierPromise
  /** Promise of the regular tier. Default 0.9 within 3 blocks. */
  regular: TierPromise
  /** Promise of the prioritized tier. Default 0.95 within 1 block. */
  prioritized: TierPromise
  /**
   * Blocks of history: the learner's experts read at most the newest `window` k-block minimum
   * cutoffs (windows 120 and 1,000, each capped at `window`), and the inverse queries
   * at horizons no tier promises read the newest `window` blocks. Default 1,000.
   */
  window: number
  /**
   * The largest step γ of the learner's adaptive-conformal experts (Gibbs & Candès 2021); the
   * others run at γ/10 (each at most γ/k at horizon k), the outer calibration of the served
   * price at γ/20, so the long-run miss rate exceeds 1 − q by at most
   * (1 + 1.05γ(k+1))/(γT/20) + 180/T after T outcomes (see `PromiseLearner.offsetLimit`; plus misses
   * forgiven while even the recent maximum missed). Default 0.05.
   */
  learning_rate: number
}

/** What a caller may pass: any subset; a promise may be given in part. */
export type CalibratedConfigInput = {
  deprioritized?: Partial<TierPromise> | undefined
  regular?: Partial<TierPromise> | undefined
  prioritized?: Partial<TierPromise> | undefined
  window?: number | undefined
  learning_rate?: number | undefined
}

/** Largest k a promise may name (the outcome of a quote is known k blocks later; this bounds the memory). */
export const MAX_PROMISE_K = 10_000

/** The documented defaults: 0.9 within 10, 0.9 within 3, 0.95 within 1; 1,000 blocks; γ = 0.05. */
export const DEFAULT_CALIBRATED_CONFIG: Readonly<CalibratedConfig> = Object.freeze({
  deprioritized: Object.freeze({ k: 10, q: 0.9 }),
  regular: Object.freeze({ k: 3, q: 0.9 }),
  prioritized: Object.freeze({ k: 1, q: 0.95 }),
  window: 1000,
  learning_rate: 0.05,
})

const TIER_KEYS = ['deprioritized', 'regular', 'prioritized'] as const
const KEYS = new Set<string>([...TIER_KEYS, 'window', 'learning_rate'])

/**
 * Applies the defaults and checks every value.
 *
 * @throws InvalidConfigError naming the key (`regular.q`, `window`, …).
 * @example resolveCalibratedConfig({ regular: { q: 0.95 } }).regular // { k: 3, q: 0.95 }
 */
export function resolveCalibratedConfig(input: CalibratedConfigInput = {}): CalibratedConfig {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new InvalidConfigError('(root)', 'must be an object')
  for (const key of Object.keys(input)) if (!KEYS.has(key)) throw new InvalidConfigError(key, 'unknown key')
  const promise = (tier: (typeof TIER_KEYS)[number]): TierPromise => {
    const given = input[tier] ?? {}
    if (given === null || typeof given !== 'object' || Array.isArray(given)) throw new InvalidConfigError(tier, 'must be an object {k, q}')
    for (const key of Object.keys(given)) if (key !== 'k' && key !== 'q') throw new InvalidConfigError(`${tier}.${key}`, 'unknown key')
    const k = given.k ?? DEFAULT_CALIBRATED_CONFIG[tier].k
    const q = given.q ?? DEFAULT_CALIBRATED_CONFIG[tier].q
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 1 || k > MAX_PROMISE_K) {
      throw new InvalidConfigError(`${tier}.k`, `must be an integer from 1 to ${MAX_PROMISE_K}, got ${JSON.stringify(k)}`)
    }
    if (typeof q !== 'number' || !(q > 0 && q < 1)) throw new InvalidConfigError(`${tier}.q`, `must be a probability strictly between 0 and 1, got ${JSON.stringify(q)}`)
    return Object.freeze({ k, q })
  }
  const window = input.window ?? DEFAULT_CALIBRATED_CONFIG.window
  if (typeof window !== 'number' || !Number.isInteger(window) || window < 1 || window > 1_000_000) {
    throw new InvalidConfigError('window', `must be an integer from 1 to 1000000, got ${JSON.stringify(window)}`)
  }
  const learning_rate = input.learning_rate ?? DEFAULT_CALIBRATED_CONFIG.learning_rate
  if (typeof learning_rate !== 'number' || !(learning_rate > 0 && learning_rate <= 1)) {
    throw new InvalidConfigError('learning_rate', `must be a number in (0, 1], got ${JSON.stringify(learning_rate)}`)
  }
  return Object.freeze({ deprioritized: promise('deprioritized'), regular: promise('regular'), prioritized: promise('prioritized'), window, learning_rate })
}
