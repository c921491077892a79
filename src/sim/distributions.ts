import type { Rng } from './prng.js'

/**
 * A Poisson-distributed count with mean `mean`. Knuth's product method below 30 (O(mean) draws);
 * above, a normal approximation rounded and clamped at 0, which is within a percent there and
 * keeps big surges O(1).
 *
 * @example poisson(rng, 3) // 0, 1, 2, … with mean 3
 */
export function poisson(rng: Rng, mean: number): number {
  if (mean <= 0) return 0
  if (mean < 30) {
    const limit = Math.exp(-mean)
    let k = 0
    let p = rng.float()
    while (p > limit) {
      k++
      p *= rng.float()
    }
    return k
  }
  return Math.max(0, Math.round(mean + Math.sqrt(mean) * standardNormal(rng)))
}

/** A standard normal draw (Box–Muller, one of the pair). */
export function standardNormal(rng: Rng): number {
  const u = 1 - rng.float() // (0, 1]: log stays finite
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.float())
}

/**
 * A Pareto draw with scale `min` and shape `alpha` (P(X > x) = (min / x)^alpha): the heavy tail
 * of fees a few urgent senders pay.
 */
export function pareto(rng: Rng, min: number, alpha: number): number {
  return min / Math.pow(1 - rng.float(), 1 / alpha)
}

/** A uniform integer in [lo, hi]. */
export function between(rng: Rng, lo: number, hi: number): number {
  return lo + rng.int(hi - lo + 1)
}
