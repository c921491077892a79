import type { U64 } from '../core/u64.js'
import { PendingInclusions, type DelayTotals } from './pending-inclusions.js'
import { QuantileSketch } from './quantile-sketch.js'
import type { Requirement } from '../core/requirement.js'
import { u64Distance } from '../core/u64.js'
import { SuffixMin } from '../core/suffix-min.js'

/** Largest k accepted: the lookahead buffer holds this many blocks per track. */
export const MAX_K = 10_000

/** The scores of one price track (one tier of one strategy), indexed like `Scorer.ks`. */
export interface TrackScore {
  /** False for a track scored for inclusion only (no overpayment, no delay). */
  detailed: boolean
  /** Blocks t with t + k inside the data. */
  evaluated: number[]
  /** Of those, how many had the track's price included within k blocks. */
  included: number[]
  /** Overpayment p − p* in octas/gas unit, over the included evaluations (empty sketches when not detailed). */
  overpayment: QuantileSketch[]
  /** Relative overpayment (p − p*)/p*, over the included evaluations with p* > 0. */
  overpayment_ratio: QuantileSketch[]
  /** Delays (all zero when not detailed). */
  delay: DelayTotals
}

/**
 * Scores price tracks against recorded blocks in one streaming pass, using only block data.
 *
 * Rules. A transaction priced p, submitted right after block t (so priced by the estimate taken
 * after ingesting t), is included in block j > t iff p >= req_j, where req_j = 0 when block j
 * was not full and `cheapest_j + 1` when it was (p strictly above the cheapest included price).
 * - Delay: the least d >= 1 with p >= req_{t+d} (exact; see `PendingInclusions`).
 * - Inclusion within k: p >= m_k(t) with m_k(t) = min(req_{t+1}, …, req_{t+k}); evaluated only
 *   for blocks t with t + k inside the data, so k evaluations are N − k.
 * - Overpayment against the cheapest price that would have met the same k:
 *   p* = max(min_gas_unit_price, m_k(t)), the least price a transaction may carry (the chain's
 *   floor) that would also have been included within k. Recorded as p − p* (octas/gas unit) and
 *   (p − p*)/p* when p* > 0, for the included evaluations only (a miss has no overpayment; the
 *   inclusion rate reports it).
 *
 * Memory: a lookahead ring of max(k) + 1 prices per track and a `SuffixMin` over the last
 * max(k) requirements; per block O(T·|ks| + |ks|·log K) plus the delay heaps.
 */
export class Scorer {
  /** The k values, ascending, unique. */
  readonly ks: readonly number[]
  readonly tracks: number
  private readonly floor: U64
  private readonly maxK: number
  /** prices[(t mod (K+1)) * T + track]: the track's price submitted after block t. */
  private readonly prices: U64[]
  private readonly reqs: SuffixMin<Requirement>
  private readonly scores: TrackScore[]
  /** Delay trackers of the detailed tracks, `null` for inclusion-only ones. */
  private readonly pending: (PendingInclusions | null)[]
  /** Per k: evaluations at which the floor price itself was included within k. */
  private readonly floorIncluded: number[]
  private n = 0
  private closed = false

  /**
   * @param detailed Which tracks get overpayment and delay figures (default all); the others are
   *   scored for inclusion only, which is what a calibration sweep needs.
   */
  constructor(tracks: number, ks: readonly number[], floor: U64, detailed: (track: number) => boolean = () => true) {
    const sorted = [...new Set(ks)].sort((a, b) => a - b)
    if (sorted.length === 0) throw new RangeError('Scorer: at least one k is needed')
    for (const k of sorted) if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw new RangeError(`Scorer: k must be an integer from 1 to ${MAX_K}, got ${k}`)
    this.ks = Object.freeze(sorted)
    this.tracks = tracks
    this.floor = floor
    this.maxK = sorted[sorted.length - 1] as number
    this.prices = new Array<U64>((this.maxK + 1) * tracks).fill(0)
    this.reqs = new SuffixMin<Requirement>(this.maxK)
    this.floorIncluded = sorted.map(() => 0)
    this.pending = Array.from({ length: tracks }, (_, t) => (detailed(t) ? new PendingInclusions() : null))
    this.scores = this.pending.map((p) => ({
      detailed: p !== null,
      evaluated: sorted.map(() => 0),
      included: sorted.map(() => 0),
      overpayment: sorted.map(() => new QuantileSketch()),
      overpayment_ratio: sorted.map(() => new QuantileSketch()),
      delay: p?.totals ?? { included: 0, sum_delay: 0, max_delay: 0, censored: 0 },
    }))
  }

  /** Blocks pushed so far. */
  get blocks(): number {
    return this.n
  }

  /**
   * Adds the next recorded block: its requirement `req` settles the transactions submitted
   * before it, then `prices[track]` (the estimates taken right after ingesting it) are submitted.
   */
  push(req: Requirement, prices: ArrayLike<U64>): void {
    if (this.closed) throw new Error('Scorer.push after close')
    if (prices.length !== this.tracks) throw new RangeError(`Scorer.push: expected ${this.tracks} prices, got ${prices.length}`)
    const i = this.n
    const T = this.tracks
    for (let s = 0; s < T; s++) this.pending[s]?.include(req, i)
    this.reqs.push(req)
    const ks = this.ks
    for (let x = 0; x < ks.length; x++) {
      const k = ks[x] as number
      const t = i - k
      if (t < 0) break
      const m = this.reqs.min(k)
      if (this.floor >= m) this.floorIncluded[x] = (this.floorIncluded[x] as number) + 1
      const pStar = m < this.floor ? this.floor : m
      const base = (t % (this.maxK + 1)) * T
      for (let s = 0; s < T; s++) {
        const p = this.prices[base + s] as U64
        const score = this.scores[s] as TrackScore
        score.evaluated[x] = (score.evaluated[x] as number) + 1
        if (p >= m) {
          score.included[x] = (score.included[x] as number) + 1
          if (!score.detailed) continue
          const over = u64Distance(pStar, p)
          ;(score.overpayment[x] as QuantileSketch).add(over)
          if (pStar > 0) (score.overpayment_ratio[x] as QuantileSketch).add(over / Number(pStar))
        }
      }
    }
    const base = (i % (this.maxK + 1)) * T
    for (let s = 0; s < T; s++) {
      const p = prices[s] as U64
      this.prices[base + s] = p
      this.pending[s]?.add(p, i)
    }
    this.n++
  }

  /** Ends the data: transactions still waiting are censored. Idempotent. */
  close(): void {
    if (this.closed) return
    this.closed = true
    for (const p of this.pending) p?.close()
  }

  /**
   * Share of the evaluations at `ks[x]` at which the floor (`min_gas_unit_price`) itself was
   * included within k: a promise of probability q at that k is floor-bound when this is >= q
   * (no lower price exists to offer, so it is over-kept by construction). `null` before any.
   */
  floorRate(x: number): number | null {
    const n = this.n - (this.ks[x] as number)
    return n <= 0 ? null : (this.floorIncluded[x] as number) / n
  }

  /** The scores of `track` (live; final after `close`). */
  score(track: number): TrackScore {
    const s = this.scores[track]
    if (s === undefined) throw new RangeError(`Scorer.score: no track ${track}`)
    return s
  }
}
