import type { TierPromise } from './calibrated-config.js'
import { cutoffPrice, type Requirement } from '../requirement.js'
import type { U64 } from '../u64.js'
import { createWindow, type OrderStatisticWindow } from '../window.js'
import { PromiseLedger, type Coverage } from './promise-ledger.js'
import { windowQuantile } from './window-quantile.js'

export type { Coverage }

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
export class ConformalQuotes extends PromiseLedger {
  readonly window: number
  readonly learningRate: number
  /** One window per distinct k (indexed like `ks`). */
  private readonly windows: OrderStatisticWindow[]
  private readonly alpha: Float64Array

  constructor(promises: readonly TierPromise[], window: number, learningRate: number, floor: U64) {
    super(promises, floor)
    this.window = window
    this.learningRate = learningRate
    this.windows = this.ks.map(() => createWindow(window))
    this.alpha = Float64Array.from(promises, (p) => 1 - p.q)
  }

  /**
   * Takes the next block's requirement: settles the quotes served k blocks ago (updating each
   * promise's level) and adds the newly known k-block minima to the windows. Call `quote` next,
   * then `serve` with the prices actually served.
   */
  observe(req: Requirement): void {
    const j = this.advance(req)
    for (let x = 0; x < this.ks.length; x++) {
      if (j + 1 < (this.ks[x] as number)) continue
      ;(this.windows[x] as OrderStatisticWindow).push(cutoffPrice(this.reqs.min(this.ks[x] as number), this.floor), j, false)
    }
    const γ = this.learningRate
    for (let i = 0; i < this.promises.length; i++) {
      const { k, q } = this.promises[i] as TierPromise
      const t = j - k
      if (t < 0) continue
      const slack = γ * (k + 1)
      const covered = this.servedAt(i, t) >= this.reqs.min(k)
      // a miss moves α down; the clamp at −γ(k+1) forgives misses, at 1 + γ(k+1) hits
      this.alpha[i] = this.settleOutcome(i, covered, this.alpha[i] as number, γ * (1 - q - (covered ? 0 : 1)), -slack, 1 + slack, γ, false)
    }
  }

  /** Promise i's price at its current level: the empirical (1 − α_i)-quantile of its k-window, at least the floor. O(1) or O(log W). */
  quote(i: number): U64 {
    return windowQuantile(this.windows[this.kIndex[i] as number] as OrderStatisticWindow, 1 - (this.alpha[i] as number), this.floor)
  }

  /** Promise i's current quantile level 1 − α_i (the raw level: above 1 means "beyond the window's maximum"). */
  level(i: number): number {
    return 1 - (this.alpha[i] as number)
  }

  /**
   * What the clamp forgave promise i, in outcomes: misses while even the recent maximum was not
   * enough, and hits beyond the promise while the floor already kept it. Exactly, after T
   * outcomes, miss rate − (1 − q) = (α_1 − α_{T+1})/(γT) + (misses − hits)/T, with the first
   * term within (1 + 2γ(k+1))/(γT).
   */
  forgiven(i: number): { misses: number; hits: number } {
    return this.forgivenOf(i)
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
    this.promises.forEach((p, i) => {
      this.alpha[i] = 1 - p.q
    })
    this.clearLedger()
  }
}
