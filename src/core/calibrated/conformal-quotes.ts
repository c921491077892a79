import type { TierPromise } from './calibrated-config.js'
import { cutoffPrice, type Requirement } from '../requirement.js'
import { SuffixMin } from '../suffix-min.js'
import type { U64 } from '../u64.js'
import { createWindow, type OrderStatisticWindow } from '../window.js'

/** The online coverage of one promise: outcomes already observed (k blocks after each quote). */
export interface Coverage {
  /** Quotes whose outcome is known. */
  evaluated: number
  /** Of those, how many would have been included within k blocks. */
  included: number
  /** `included / evaluated`, or `null` before the first outcome. */
  rate: number | null
}

/**
 * Prices a set of promises "included within k blocks with probability at least q" from block
 * requirements alone, with adaptive conformal inference (ACI, Gibbs & Candès 2021) on top of an
 * empirical quantile.
 *
 * For each distinct k it keeps the newest `window` values of m_k(t) = min(req_{t+1..t+k}) (the
 * least price that a quote made after block t needed; known once block t+k is in), as cutoff
 * prices raised to the floor. Promise i quotes the empirical (1 − α_i)-quantile of its k's
 * window: the least held value v with at least ⌈(1 − α_i)·n⌉ of the n values ≤ v. When the
 * outcome of the price served k blocks ago becomes known, α_i ← α_i + γ(1 − q_i − err), err = 1
 * for a miss. Summing the updates, α_{T+1} = α_1 + γ·Σ(1 − q_i − err_t), so over T outcomes the
 * miss rate is 1 − q_i + (α_1 − α_{T+1})/(γT). With immediate feedback α stays in [−γ, 1 + γ]
 * (Gibbs & Candès, Prop. 4.1); with feedback k blocks late it can overshoot by the k outcomes
 * still in flight, so it stays in [−γ(k+1), 1 + γ(k+1)] and the miss rate is within
 * (1 + 2γ(k+1))/(γT) of 1 − q_i, whatever the data, as long as a quote at the recent maximum is
 * included and a quote at the floor may miss. α_i is clamped to that interval, which binds only
 * when one of those fails: above 1 the quote is already the floor (the clamp forgives coverage
 * beyond the promise at the lowest price), below 0 it is already the highest recent cutoff (it
 * forgives misses that no recently seen price would have avoided). Clamping changes no quote; it
 * stops wind-up. (Clamping at [−γ, 1 + γ] would be wrong with late feedback: it would forgive
 * misses of quotes made before α fell below 0.)
 *
 * The served price may be raised by the caller (tiers kept ordered); outcomes are scored on the
 * price actually served, so the guarantee is about what users were told.
 *
 * Cost per block: O(|distinct k| · log W) for the windows plus O(promises); memory
 * O(W · |distinct k| + Σ k).
 */
export class ConformalQuotes {
  readonly promises: readonly TierPromise[]
  readonly window: number
  readonly learningRate: number
  readonly floor: U64
  private readonly ks: number[]
  private readonly windows: OrderStatisticWindow[]
  /** Index into `ks`/`windows` of each promise's k. */
  private readonly kIndex: number[]
  private readonly reqs: SuffixMin<Requirement>
  private readonly alpha: Float64Array
  /** served[i][t mod (k_i + 1)]: the price served for promise i after block t. */
  private readonly served: U64[][]
  private readonly evaluated: Float64Array
  private readonly included: Float64Array
  /** Σ of what the clamp added to α at the bottom / took off at the top, divided by γ (outcome units). */
  private readonly forgivenMisses: Float64Array
  private readonly forgivenHits: Float64Array
  private blocks = 0

  constructor(promises: readonly TierPromise[], window: number, learningRate: number, floor: U64) {
    this.promises = Object.freeze(promises.map((p) => Object.freeze({ ...p })))
    this.window = window
    this.learningRate = learningRate
    this.floor = floor
    this.ks = [...new Set(promises.map((p) => p.k))].sort((a, b) => a - b)
    this.windows = this.ks.map(() => createWindow(window))
    this.kIndex = promises.map((p) => this.ks.indexOf(p.k))
    this.reqs = new SuffixMin<Requirement>(Math.max(1, ...this.ks))
    this.alpha = Float64Array.from(promises, (p) => 1 - p.q)
    this.served = promises.map((p) => new Array<U64>(p.k + 1).fill(floor))
    this.evaluated = new Float64Array(promises.length)
    this.included = new Float64Array(promises.length)
    this.forgivenMisses = new Float64Array(promises.length)
    this.forgivenHits = new Float64Array(promises.length)
  }

  /** Blocks observed so far. */
  get length(): number {
    return this.blocks
  }

  /**
   * Takes the next block's requirement: settles the quotes served k blocks ago (updating each
   * promise's level) and adds the newly known k-block minima to the windows. Call `quote` next,
   * then `serve` with the prices actually served.
   */
  observe(req: Requirement): void {
    const j = this.blocks++
    this.reqs.push(req)
    for (let x = 0; x < this.ks.length; x++) {
      const k = this.ks[x] as number
      if (j + 1 < k) continue
      ;(this.windows[x] as OrderStatisticWindow).push(cutoffPrice(this.reqs.min(k), this.floor), j, false)
    }
    const γ = this.learningRate
    for (let i = 0; i < this.promises.length; i++) {
      const { k, q } = this.promises[i] as TierPromise
      const t = j - k
      if (t < 0) continue
      const slack = γ * (k + 1)
      const price = (this.served[i] as U64[])[t % (k + 1)] as U64
      const covered = price >= this.reqs.min(k)
      this.evaluated[i] = (this.evaluated[i] as number) + 1
      if (covered) this.included[i] = (this.included[i] as number) + 1
      const a = (this.alpha[i] as number) + γ * (1 - q - (covered ? 0 : 1))
      if (a < -slack) {
        this.forgivenMisses[i] = (this.forgivenMisses[i] as number) + (-slack - a) / γ
        this.alpha[i] = -slack
      } else if (a > 1 + slack) {
        this.forgivenHits[i] = (this.forgivenHits[i] as number) + (a - 1 - slack) / γ
        this.alpha[i] = 1 + slack
      } else this.alpha[i] = a
    }
  }

  /** Promise i's price at its current level: the empirical (1 − α_i)-quantile of its k-window, at least the floor. O(1) or O(log W). */
  quote(i: number): U64 {
    const w = this.windows[this.kIndex[i] as number] as OrderStatisticWindow
    const n = w.length
    if (n === 0) return this.floor
    const need = Math.ceil((1 - (this.alpha[i] as number)) * n - 1e-9)
    if (need <= 0) return this.floor
    return w.valueAt(Math.min(n, need) - 1)
  }

  /** Records the price served for promise i after the newest block (scored k blocks later). */
  serve(i: number, price: U64): void {
    const k = (this.promises[i] as TierPromise).k
    ;(this.served[i] as U64[])[(this.blocks - 1) % (k + 1)] = price
  }

  /** Promise i's current quantile level 1 − α_i (the raw level: above 1 means "beyond the window's maximum"). */
  level(i: number): number {
    return 1 - (this.alpha[i] as number)
  }

  /** Outcomes observed so far for promise i. */
  coverage(i: number): Coverage {
    const evaluated = this.evaluated[i] as number
    const included = this.included[i] as number
    return { evaluated, included, rate: evaluated === 0 ? null : included / evaluated }
  }

  /**
   * What the clamp forgave promise i, in outcomes: misses while even the recent maximum was not
   * enough, and hits beyond the promise while the floor already kept it. Exactly, after T
   * outcomes, miss rate − (1 − q) = (α_1 − α_{T+1})/(γT) + (misses − hits)/T, with the first
   * term within (1 + 2γ(k+1))/(γT).
   */
  forgiven(i: number): { misses: number; hits: number } {
    return { misses: this.forgivenMisses[i] as number, hits: this.forgivenHits[i] as number }
  }

  /** Samples in promise i's window. */
  samples(i: number): number {
    return (this.windows[this.kIndex[i] as number] as OrderStatisticWindow).length
  }

  /**
   * True when the floor alone kept promise i on the window: at least ⌈q·n⌉ of the n recent
   * k-block minima were at or below the floor (any n > 0). A floor-bound promise is over-kept by
   * construction: no lower price exists to offer.
   */
  floorBound(i: number): boolean {
    const w = this.windows[this.kIndex[i] as number] as OrderStatisticWindow
    const n = w.length
    if (n === 0) return false
    const need = Math.max(1, Math.ceil((this.promises[i] as TierPromise).q * n - 1e-9))
    return w.valueAt(need - 1) <= this.floor
  }

  /** Forgets everything (levels back to 1 − q). */
  clear(): void {
    for (const w of this.windows) w.clear()
    this.reqs.clear()
    this.promises.forEach((p, i) => {
      this.alpha[i] = 1 - p.q
      ;(this.served[i] as U64[]).fill(this.floor)
    })
    this.evaluated.fill(0)
    this.included.fill(0)
    this.forgivenMisses.fill(0)
    this.forgivenHits.fill(0)
    this.blocks = 0
  }
}
