/** Distinct values counted exactly before the sketch switches to log-spaced bins. */
export const EXACT_DISTINCT_LIMIT = 2048

/** Relative accuracy of a quantile once the sketch uses bins (DDSketch's α). */
export const RELATIVE_ACCURACY = 0.005

const GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY)
const LOG_GAMMA = Math.log(GAMMA)

/** One point of an empirical CDF: the fraction of values at or below `value`. */
export interface CdfPoint {
  value: number
  fraction: number
}

/**
 * Quantiles of a stream in bounded memory. Exact while the stream holds at most
 * `EXACT_DISTINCT_LIMIT` distinct values (overpayments are mostly differences of bucket values,
 * so this is the common case); beyond that, a DDSketch (Masson, Rim, Lee 2019): each non-zero
 * value goes to the bin `ceil(log_γ |x|)` with γ = (1+α)/(1−α), and a quantile is answered by
 * the bin's centre, within relative error α = `RELATIVE_ACCURACY` of a true stream value of that
 * rank. Zero is counted apart. Memory: O(EXACT_DISTINCT_LIMIT) in exact mode, O(log_γ(max/min))
 * bins after (about 4,600 bins span 1 to 10^20). `add` is O(1).
 *
 * Quantile rule (nearest rank): the q-quantile of n values is the ⌈q·n⌉-th smallest (the first
 * for q = 0), so the median of an even count is the lower middle value.
 *
 * @example const s = new QuantileSketch(); for (const v of [0, 50, 50, 400]) s.add(v); s.quantile(0.5) // 50
 */
export class QuantileSketch {
  private exact: Map<number, number> | null = new Map()
  private readonly positive = new Map<number, number>()
  private readonly negative = new Map<number, number>()
  private zeros = 0
  private n = 0
  private total = 0

  /** Number of values added. */
  get count(): number {
    return this.n
  }

  /** True while every quantile is exact. */
  get isExact(): boolean {
    return this.exact !== null
  }

  /** Mean of the values (exact sum in doubles), or `null` when empty. */
  get mean(): number | null {
    return this.n === 0 ? null : this.total / this.n
  }

  add(value: number): void {
    if (!Number.isFinite(value)) throw new RangeError(`QuantileSketch.add: not a finite number: ${value}`)
    this.n++
    this.total += value
    if (this.exact !== null) {
      this.exact.set(value, (this.exact.get(value) ?? 0) + 1)
      if (this.exact.size > EXACT_DISTINCT_LIMIT) this.toBins()
      return
    }
    this.bin(value, 1)
  }

  /** The nearest-rank q-quantile (0 <= q <= 1), or `null` when empty. */
  quantile(q: number): number | null {
    if (this.n === 0) return null
    const rank = Math.min(this.n, Math.max(1, Math.ceil(q * this.n - 1e-9)))
    let seen = 0
    for (const [value, c] of this.entries()) {
      seen += c
      if (seen >= rank) return value
    }
    return null
  }

  /**
   * The empirical CDF, at most `maxPoints` points (evenly thinned, the last kept), ascending.
   * Values are exact in exact mode, bin centres after.
   */
  cdf(maxPoints = 200): CdfPoint[] {
    const all: CdfPoint[] = []
    let seen = 0
    for (const [value, c] of this.entries()) {
      seen += c
      all.push({ value, fraction: seen / this.n })
    }
    if (all.length <= maxPoints) return all
    const out: CdfPoint[] = []
    const step = all.length / maxPoints
    for (let i = 0; i < maxPoints - 1; i++) out.push(all[Math.floor(i * step)] as CdfPoint)
    out.push(all[all.length - 1] as CdfPoint)
    return out
  }

  /** (value, count) in ascending value order. O(m log m) for m distinct values or bins. */
  private entries(): [number, number][] {
    if (this.exact !== null) return [...this.exact].sort((a, b) => a[0] - b[0])
    const out: [number, number][] = []
    for (const [i, c] of [...this.negative].sort((a, b) => b[0] - a[0])) out.push([-centre(i), c])
    if (this.zeros > 0) out.push([0, this.zeros])
    for (const [i, c] of [...this.positive].sort((a, b) => a[0] - b[0])) out.push([centre(i), c])
    return out
  }

  private toBins(): void {
    const exact = this.exact as Map<number, number>
    this.exact = null
    for (const [v, c] of exact) this.bin(v, c)
  }

  private bin(value: number, c: number): void {
    if (value === 0) {
      this.zeros += c
      return
    }
    const map = value > 0 ? this.positive : this.negative
    const i = Math.ceil(Math.log(Math.abs(value)) / LOG_GAMMA)
    map.set(i, (map.get(i) ?? 0) + c)
  }
}

/** The value representing bin i: within relative error α of every value in (γ^(i-1), γ^i]. */
function centre(i: number): number {
  return (2 * GAMMA ** i) / (GAMMA + 1)
}
