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

/**
 * Picks an index by weight. `cumulative` is the running sum of the weights (ascending, last
 * entry the total). O(log n) by binary search.
 */
export function pickCumulative(rng: Rng, cumulative: readonly number[]): number {
  const total = cumulative[cumulative.length - 1] ?? 0
  const x = rng.float() * total
  let lo = 0
  let hi = cumulative.length - 1
  // invariant: the answer is in [lo, hi]; cumulative[hi] > x
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((cumulative[mid] as number) > x) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** Running sums of `weights`, for `pickCumulative`. */
export function cumulativeOf(weights: readonly number[]): number[] {
  let sum = 0
  return weights.map((w) => (sum += w))
}
