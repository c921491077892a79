import type { TierPromise } from './calibrated-config.js'
import type { Requirement } from '../requirement.js'
import { ringSize } from '../ring-size.js'
import { SuffixMin } from '../suffix-min.js'
import type { U64 } from '../u64.js'

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
 * What the online pricers of promises "included within k blocks with probability q" share: the
 * promises and their distinct horizons, the newest requirements (k-block minima), the ring of
 * prices served per promise (each settled k blocks later), and per promise the outcomes of
 * settled quotes and the clamped calibration step they drive: a
 * calibration variable moves by a step per outcome and is clamped to [lo, hi]; what a clamp
 * takes off is kept, in outcomes (divided by the learning rate), as forgiven misses or forgiven
 * hits, so that the exact identity behind a coverage bound can be checked. Shared by the plain
 * conformal quotes (the level α) and the learner (the outer offset), which differ only in the
 * direction a miss moves their variable.
 */
export abstract class PromiseLedger {
  readonly promises: readonly TierPromise[]
  readonly floor: U64
  /** Each promise's k and q as typed arrays: the hot paths read these, since an element of the frozen `promises` is a generic load. */
  protected readonly horizon: Int32Array
  protected readonly probability: Float64Array
  /** The distinct horizons, ascending, and each promise's index into them. */
  protected readonly ks: readonly number[]
  protected readonly kIndex: readonly number[]
  /** The newest max(k) requirements, for the k-block minima. */
  protected readonly reqs: SuffixMin<Requirement>
  /** served[i][t & slotMask[i]]: the price served for promise i after block t (a ring of at least k_i + 1 slots, `ringSize`). */
  private readonly served: U64[][]
  protected readonly slotMask: Int32Array
  protected blocks = 0
  private readonly evaluated: Float64Array
  private readonly included: Float64Array
  private readonly forgivenMisses: Float64Array
  private readonly forgivenHits: Float64Array

  constructor(promises: readonly TierPromise[], floor: U64) {
    this.promises = Object.freeze(promises.map((p) => Object.freeze({ ...p })))
    this.floor = floor
    this.horizon = Int32Array.from(promises, (p) => p.k)
    this.probability = Float64Array.from(promises, (p) => p.q)
    this.ks = [...new Set(promises.map((p) => p.k))].sort((a, b) => a - b)
    this.kIndex = promises.map((p) => this.ks.indexOf(p.k))
    this.reqs = new SuffixMin<Requirement>(Math.max(1, ...this.ks))
    this.slotMask = Int32Array.from(promises, (p) => ringSize(p.k + 1) - 1)
    this.served = promises.map((p) => new Array<U64>(ringSize(p.k + 1)).fill(floor))
    this.evaluated = new Float64Array(promises.length)
    this.included = new Float64Array(promises.length)
    this.forgivenMisses = new Float64Array(promises.length)
    this.forgivenHits = new Float64Array(promises.length)
  }

  /** Blocks observed so far. */
  get length(): number {
    return this.blocks
  }

  /** Records the price served for promise i after the newest block (scored k blocks later). */
  serve(i: number, price: U64): void {
    ;(this.served[i] as U64[])[(this.blocks - 1) & (this.slotMask[i] as number)] = price
  }

  /** The price served for promise i after block t (t within the last k_i + 1 blocks). */
  protected servedAt(i: number, t: number): U64 {
    return (this.served[i] as U64[])[t & (this.slotMask[i] as number)] as U64
  }

  /** Takes the next block's requirement; returns its index j (0 for the first block). */
  protected advance(req: Requirement): number {
    this.reqs.push(req)
    return this.blocks++
  }

  /**
   * Counts one settled quote of promise i and returns `value + step` clamped to [lo, hi].
   * `missesRaise`: a miss moves the variable up (so a clamp at hi forgives misses), else down
   * (a clamp at lo forgives them). `rate` converts what the clamp took off into outcomes.
   */
  protected settleOutcome(i: number, covered: boolean, value: number, step: number, lo: number, hi: number, rate: number, missesRaise: boolean): number {
    this.evaluated[i] = (this.evaluated[i] as number) + 1
    if (covered) this.included[i] = (this.included[i] as number) + 1
    const v = value + step
    if (v > hi) {
      const forgiven = missesRaise ? this.forgivenMisses : this.forgivenHits
      forgiven[i] = (forgiven[i] as number) + (v - hi) / rate
      return hi
    }
    if (v < lo) {
      const forgiven = missesRaise ? this.forgivenHits : this.forgivenMisses
      forgiven[i] = (forgiven[i] as number) + (lo - v) / rate
      return lo
    }
    return v
  }

  /** Outcomes observed so far for promise i. */
  coverage(i: number): Coverage {
    const evaluated = this.evaluated[i] as number
    const included = this.included[i] as number
    return { evaluated, included, rate: evaluated === 0 ? null : included / evaluated }
  }

  /** What the clamps forgave promise i, in outcomes. */
  protected forgivenOf(i: number): { misses: number; hits: number } {
    return { misses: this.forgivenMisses[i] as number, hits: this.forgivenHits[i] as number }
  }

  /** Forgets every block, served price and outcome. */
  protected clearLedger(): void {
    this.reqs.clear()
    for (const ring of this.served) ring.fill(this.floor)
    this.blocks = 0
    this.evaluated.fill(0)
    this.included.fill(0)
    this.forgivenMisses.fill(0)
    this.forgivenHits.fill(0)
  }
}
