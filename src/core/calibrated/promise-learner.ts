import type { TierPromise } from './calibrated-config.js'
import { cutoffPrice, type Requirement } from '../requirement.js'
import { u64ToNumber, type U64 } from '../u64.js'
import type { MultisetWindow } from '../multiset-window.js'
import type { OrderStatisticWindow } from '../window.js'
import { CALM } from './chain-state.js'
import { replayLevel, replayLoss } from './calm-replay.js'
import { ExpertEnsemble } from './expert-ensemble.js'
import { FLOOR_RULE, LONG_FLOOR, NO_FLOOR_RULE, SCALED, SINKING_RUN } from './ensemble-rules.js'
import { plannedDebt } from './floor-rule.js'
import type { Coverage } from './promise-ledger.js'
import { windowQuantile } from './window-quantile.js'
import { PROMISE_LEARNER_DEFAULTS, STATES, TERCILES, type ChainState, type Expert, type PromiseExplain, type PromiseLearnerOptions } from './promise-types.js'

export { PROMISE_LEARNER_DEFAULTS, type ChainState, type PromiseExplain, type PromiseLearnerOptions }

/**
 * Prices a set of promises "included within k blocks with probability at least q" at the
 * lowest price that keeps them: an ensemble of adaptive-conformal experts (DtACI-style, Gibbs &
 * Candès 2022) over a grid of (window, γ), each either marginal (every recent k-block minimum
 * cutoff), conditioned on the chain's state (only the samples taken after a block in the same
 * state, calm or busy by the tercile of its cutoff, see `ChainStateRing`: a calm chain after a
 * burst is calm again, and its calm samples say so at once), or
 * scaled by the going rate (the largest window only; each sample divided by the running geometric mean of full
 * blocks' cutoffs (`ChainStateRing`) when it was quoted; the quote is today's going rate times their
 * quantile, so a market whose price level drifts or switches is priced at its level now). Each
 * expert runs its own ACI level on its own quotes; the expert served is the one with the least
 * discounted pinball loss at q (the proper score of a q-quantile: it charges overpayment at
 * 1 − q and a miss at q, so the cheapest expert that keeps the promise wins).
 *
 * The guarantee comes from an outer ACI step on the price actually served: its level is the
 * chosen expert's plus an offset d (less γ_o/γ of the expert's level's distance from its running
 * mean, so that the served level moves by the expert's γ per outcome and not γ + γ_o, except
 * where the market's level moves or a calm stretch's hits are being spent; see
 * `ExpertEnsemble.price`), d moved by γ_o(err − (1 − q)) as each served quote is settled k blocks
 * later. Summing, d_{T+1} = d_1 + γ_o·(misses − (1 − q)·T), so the miss rate is within
 * (d_max − d_min)/(γ_o·T) of 1 − q whatever the data, with d clamped to [−1 − s, 1 + s] (s the
 * experts' largest slack γ(k+1) plus γ_o(k+1)): at either end the served level is beyond [0, 1],
 * so the quote is already the floor or the window's maximum and clamping changes no quote.
 * (The hits of calm stretches push d down; they are spent as cheaper quotes in busy ones, which is
 * how the promise is kept at q rather than over-kept.)
 *
 * Floor rule: a promise is quoted at the floor whenever the floor's share of all recent samples
 * (the largest window) is not significantly below q (`floorKeeps`), whatever the current state:
 * no overpayment where no lower price exists. Gated on d ≤ `FLOOR_GATE`·γ_o, so that the misses
 * it causes raise d and switch it off. It is also quoted while d ≤ −`FLOOR_SURPLUS`·γ_o: hits
 * beyond q already banked (calm stretches the floor kept) are spent as floor quotes rather than
 * as a lower quantile of a busy state's samples; their misses raise d out of that range. While the
 * floor keeps the promise, the gate's allowance (`FLOOR_GATE`·γ_o) is subtracted from the served
 * level: what the rule overdrew within its allowance is not paid back by the window's top
 * quantiles (the dearest coverage there is), only the offset beyond it raises the quote, and the
 * clamp is wider by the same amount so that it still changes no quote. Before the window holds
 * `FLOOR_PRIOR_SAMPLES` samples the floor test counts a fading prior of floor-met samples
 * (`FLOOR_PRIOR`), so a chain that starts busy prices a floor-bound promise above the floor on
 * fewer of its first blocks. The floor is also quoted while the floor's record since the start
 * says it keeps the promise over the long run (`FloorLedger`: its deficit within one batch-means
 * standard error, and it and the offset within the long allowance), so a busy regime of a chain
 * whose floor keeps the promise over thousands of blocks is not paid for; and on a calm block
 * whose state's own samples the floor met at the served level (≤ 1), whichever expert is served.
 * While that record says the floor keeps the promise, the long allowance (at most the debt the
 * tolerance plans for, `plannedDebt`), like the gate's, is subtracted from the served level (the
 * larger of the two where both apply), and the clamp is
 * wider by the larger gate: once the floor is left, the learner aims at a debt the calm
 * stretches repay rather than paying the busy regime back to q, which the calm stretches after
 * it then over-kept by several points. The bound above does not depend on these rules.
 *
 * Deterministic. Memory: per distinct k, |windows| × (1 + `STATES`) + 1 windows of at most the
 * window's size, plus Σ k quotes per expert. Cost per block: O(|ks| · |windows| · log W) for the
 * windows and O(promises · experts) for the updates.
 */
export class PromiseLearner extends ExpertEnsemble {
  /** Consecutive calm blocks (requirement 0) up to the newest. */
  private calmStreak = 0
  /** In a calm run (see `observe`): calm blocks are only counted, `pending` of them not yet applied. */
  private calmRun = false
  private pending = 0
  private readonly calmRuns: boolean

  constructor(promises: readonly TierPromise[], options: PromiseLearnerOptions) {
    super(promises, options)
    this.calmRuns = options.calmRuns ?? true
  }

  /**
   * Takes the next block's requirement (0 when it was not full): settles every quote made k
   * blocks ago (experts' levels and losses, the outer offset), files the newly known k-block
   * minima under the state they were quoted in, and prices every promise for the next block.
   * Call `quote` next, then `serve` with the prices actually served.
   *
   * Calm run: once the chain has been calm for more than max(k) blocks and every expert of every
   * promise quotes the floor (with every quote still in flight, and under the outer offset
   * whichever expert is served, see `settledAtFloor`), a further calm block changes no quote:
   * its k-block minima are 0, so every quote is a hit and every sample is the floor, which can
   * only lower each expert's quantile, and its level only falls. Such blocks are counted in
   * O(1) and applied together (`catchUp`, the same arithmetic block by block) before the next
   * block that is not calm and before any read other than `quote`; the state is then exactly
   * what applying each block at once gives.
   */
  observe(req: Requirement): void {
    if (req === 0 && this.calmRun) {
      this.advance(req)
      this.pending++
      this.calmStreak++
      return
    }
    this.catchUp()
    // a calm stretch long enough to sink a level just ended: the owing rule may raise levels while the largest window holds it
    if (req !== 0 && this.calmStreak >= SINKING_RUN) this.sunkUntil = this.blocks + (this.windows[this.windows.length - 1] as number)
    const j = this.advance(req)
    for (let x = 0; x < this.ks.length; x++) {
      const k = this.ks[x] as number
      if (j + 1 < k) continue
      // m_k(j − k): what a quote made after block j − k needed; j − k = −1 is the point before any block (calm)
      const m = this.reqs.min(k)
      const v = cutoffPrice(m, this.floor)
      const cut = u64ToNumber(v)
      this.minAt[x] = m
      this.cutAt[x] = cut
      const s = this.chain.stateAt(j - k)
      const seq = (this.condSeq[x * STATES + s] as number) + 1
      this.condSeq[x * STATES + s] = seq
      const marginal = this.marginal[x] as OrderStatisticWindow[]
      const conditional = (this.conditional[x] as OrderStatisticWindow[][])[s] as OrderStatisticWindow[]
      // flagged: the floor alone met this sample (the floor rule reads the share in O(1))
      const atFloor = v <= this.floor
      for (let w = 0; w < this.windows.length; w++) {
        ;(marginal[w] as OrderStatisticWindow).push(v, j, atFloor)
        ;(conditional[w] as OrderStatisticWindow).push(v, seq, atFloor)
      }
      const ratio = cut / this.chain.levelAt(j - k)
      ;(this.scaledWindows[x] as OrderStatisticWindow).push(ratio, j, atFloor)
    }
    // the state after block j first: the samples above were filed under older blocks' states, and settling reads none
    this.chain.push(req, j)
    const floor = u64ToNumber(this.floor)
    for (let i = 0; i < this.promises.length; i++) {
      const x = this.kIndex[i] as number
      // the floor's record reads the samples the windows hold (from the point before any block on)
      if (j + 1 >= (this.ks[x] as number)) this.floorLedger.settle(i, (this.cutAt[x] as number) <= floor)
      this.settle(i, j)
      this.plans[i] = plannedDebt(j + 1, this.horizon[i] as number) * this.outerRate
      // the gate only grows with the window's samples, to the full gate, which no later block changes
      if ((this.gates[i] as number) < this.fullGate) this.gates[i] = this.floorGateOf(i)
      this.price(i, j)
    }
    this.calmStreak = req === 0 ? this.calmStreak + 1 : 0
    this.calmRun = this.calmRuns && this.calmStreak > this.maxK && this.settledAtFloor(j)
  }

  /** Promise i's price for the newest block (at least the floor). O(1). */
  quote(i: number): U64 {
    return this.quoted[i] as U64
  }

  /**
   * The outer offset of promise i and what its clamp forgave, in outcomes. Exactly, after T
   * settled quotes, misses − (1 − q)·T = offset/γ_o + misses forgiven − hits forgiven, and
   * |offset| ≤ `offsetLimit(k)`: the miss rate is within (offsetLimit/γ_o + forgiven misses)/T of
   * 1 − q whatever the data. Misses are forgiven only while even the window's maximum missed.
   */
  calibration(i: number): { offset: number; forgiven_misses: number; forgiven_hits: number } {
    this.catchUp()
    const forgiven = this.forgivenOf(i)
    return { offset: this.offset[i] as number, forgiven_misses: forgiven.misses, forgiven_hits: forgiven.hits }
  }

  /**
   * The served level of promise i: the chosen expert's 1 − α plus the outer offset, less the
   * larger floor allowance where the floor keeps the promise and, where it applies, γ_o/γ of the
   * level's distance from its running mean (see `ExpertEnsemble.price`; above 1: beyond the
   * window's maximum).
   */
  level(i: number): number {
    this.catchUp()
    return this.servedLevel[i] as number
  }

  /** Samples the chosen expert of promise i reads. */
  samples(i: number): number {
    this.catchUp()
    return this.windowOf(i, this.chosen[i] as number).length
  }

  /**
   * True when the floor alone met promise i on the recent samples: the floor rule is quoting the
   * floor (its share of all recent samples is not significantly below q), or at least ⌈q·n⌉ of
   * the chosen expert's samples were at the floor. No lower price exists to offer.
   */
  floorBound(i: number): boolean {
    this.catchUp()
    const rule = this.floorRule[i]
    if (rule === FLOOR_RULE || rule === LONG_FLOOR) return true
    const e = this.chosen[i] as number
    const ex = this.experts[e] as Expert
    // a scaled expert's samples are ratios: whether the floor met them is read off the same samples unscaled
    const w = ex.scaled ? ((this.marginal[this.kIndex[i] as number] as OrderStatisticWindow[])[ex.w] as OrderStatisticWindow) : this.windowOf(i, e)
    const n = w.length
    if (n === 0) return false
    return w.valueAt(Math.max(1, Math.ceil((this.promises[i] as TierPromise).q * n - 1e-9)) - 1) <= this.floor
  }

  /**
   * The learner's chance that a price is included within promise i's k: the share of the
   * driving expert's samples at or below `price`, raised by the calibration where the learner
   * serves a level below q (it found that share pessimistic), so a price at the served level
   * reads at least q; never above 1, and 1 at or above every sample. `null` with no sample. O(W)
   * at worst (a binary search over the order statistics).
   */
  probabilityOf(i: number, price: U64): number | null {
    this.catchUp()
    const e = this.chosen[i] as number
    const w = this.windowOf(i, e)
    const n = w.length
    if (n === 0) return null
    // a scaled expert's samples are ratios to the going rate: compare the price's ratio
    const scaled = (this.experts[e] as Expert).scaled
    const bar: U64 = scaled ? Number(price) / this.chain.going : price
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (w.valueAt(mid) <= bar) lo = mid + 1
      else hi = mid
    }
    const raise = Math.max(0, (this.promises[i] as TierPromise).q - Math.max(0, this.level(i)))
    return Math.min(1, lo / n + raise)
  }

  /**
   * Promise i's learner priced for another probability q′ at the same k: the driving expert's
   * quantile at the served level moved by q′ − q (the floor rule applies only at q′ ≤ q).
   */
  priceAt(i: number, q: number): U64 {
    this.catchUp()
    const own = (this.promises[i] as TierPromise).q
    if (this.floorRule[i] !== NO_FLOOR_RULE && q <= own) return this.floor
    return this.expertPrice(i, this.chosen[i] as number, this.level(i) + q - own)
  }

  /** Which expert and state drove promise i's quote. */
  explain(i: number): PromiseExplain {
    this.catchUp()
    const e = this.experts[this.chosen[i] as number] as Expert
    return {
      expert: { window: this.windows[e.w] as number, learning_rate: (this.rateAt[this.kIndex[i] as number] as Float64Array)[this.chosen[i] as number] as number, conditioned: e.conditioned, scaled: e.scaled },
      state: this.chain.state === CALM ? 'calm' : 'busy',
      cutoff_tercile: TERCILES[this.chain.state] ?? null,
      level: 1 - ((this.alpha[i] as Float64Array)[this.chosen[i] as number] as number),
      offset: this.offset[i] as number,
      floor_bound: this.floorBound(i),
      samples: this.samples(i),
    }
  }

  /** Outcomes observed so far for promise i. */
  override coverage(i: number): Coverage {
    this.catchUp()
    return super.coverage(i)
  }

  /** Forgets everything. */
  clear(): void {
    this.calmRun = false
    this.pending = 0
    this.calmStreak = 0
    this.clearEnsemble()
  }


  /**
   * Whether further calm blocks after block j (calm, the chain calm for more than max(k) blocks,
   * so every sample they file is the floor, under the calm state and today's going rate) leave
   * every quote of every promise at the floor: for each promise, the quote served is the floor;
   * every expert quoted the floor at every block whose quote is still to be settled (so each of
   * those settles as a hit that adds no loss); the scaled expert's floor comes from its ratios
   * and so does that of a calm sample (a price ≤ the floor at today's going rate); and the served
   * price stays the floor whichever expert is chosen, because the floor rule holds, or every
   * expert would be served at most its own level (the offset, plus what `price`'s shrink towards
   * the level's mean adds where the level is below it, ≤ 0), or quotes the floor at the most it
   * would be served at. Each of these persists through calm blocks: floor samples only lower a
   * quantile, the levels, the offset and the floor rule's test only move towards the floor, and
   * calm blocks leave the mean as it is.
   */
  private settledAtFloor(j: number): boolean {
    const floor = this.floor
    const f = Number(floor)
    if (Math.ceil((f / this.chain.going) * this.chain.going - 1e-9) > f) return false
    for (let i = 0; i < this.promises.length; i++) {
      const k = (this.promises[i] as TierPromise).k
      if (this.quoted[i] !== floor || (this.lastHot[i] as number) > j - k) return false
      const alpha = this.alpha[i] as Float64Array
      const d = this.offset[i] as number
      const mean = this.levelMean[i] as number
      const rates = this.rateAt[this.kIndex[i] as number] as Float64Array
      // only the short floor rule is known to persist through calm blocks (see above); the long rule's test need not
      const offsetSafe = this.floorRule[i] === FLOOR_RULE
      for (let e = 0; e < alpha.length; e++) {
        const own = 1 - (alpha[e] as number)
        const scaled = this.expertKind[e] === SCALED
        if (scaled && !this.holdsFloor(i, e, own)) return false
        if (offsetSafe) continue
        // at most own + d, plus γ_o/γ of the level's distance below its mean (`price`'s shrink, which a run may start or stop)
        const lift = d + (!scaled && mean === mean && mean > own ? Math.min(1, this.outerRate / (rates[e] as number)) * (mean - own) : 0)
        if (lift > 0 && !this.holdsFloor(i, e, own + lift)) return false
      }
    }
    return true
  }

  /** Expert e of promise i quotes the floor at `level`; a scaled expert from its ratios (not the unscaled fallback). */
  private holdsFloor(i: number, e: number, level: number): boolean {
    const f = Number(this.floor)
    if (this.expertKind[e] !== SCALED) return Number(windowQuantile(this.windowOf(i, e), level, this.floor)) <= f
    const ratios = this.scaledWindows[this.kIndex[i] as number] as OrderStatisticWindow
    const n = ratios.length
    const need = n === 0 ? 0 : Math.ceil(level * n - 1e-9)
    if (need <= 0) return true
    return Math.ceil((ratios.valueAt((need < n ? need : n) - 1) as number) * this.chain.going - 1e-9) <= f
  }

  /**
   * Applies the calm blocks counted since the run's last applied block, as `observe` would have
   * one by one: each k's floor samples filed (marginal, calm state, scaled at today's going
   * rate), every promise's hits settled (levels, losses, outer offset, counts), in-flight quotes
   * the floor, the run's blocks filed calm in the chain state ring, and the newest block priced.
   */
  private catchUp(): void {
    const n = this.pending
    if (n === 0) return
    this.pending = 0
    const jEnd = this.blocks - 1
    const first = jEnd - n + 1
    const floor = this.floor
    const ratio = Number(floor) / this.chain.going
    this.chain.pushCalm(first, n)
    for (let x = 0; x < this.ks.length; x++) {
      const k = this.ks[x] as number
      const seq = this.condSeq[x * STATES + CALM] as number
      this.condSeq[x * STATES + CALM] = seq + n
      const marginal = this.marginal[x] as MultisetWindow[]
      const calm = (this.conditional[x] as MultisetWindow[][])[CALM] as MultisetWindow[]
      for (let w = 0; w < this.windows.length; w++) {
        ;(marginal[w] as MultisetWindow).pushRepeat(floor, first, n, true)
        ;(calm[w] as MultisetWindow).pushRepeat(floor, seq + 1, n, true)
      }
      ;(this.scaledWindows[x] as MultisetWindow).pushRepeat(ratio, first, n, true)
      this.minAt[x] = this.reqs.min(k)
      this.cutAt[x] = Number(cutoffPrice(this.minAt[x] as Requirement, floor))
    }
    const λ = this.discount
    for (let i = 0; i < this.promises.length; i++) {
      const { k, q } = this.promises[i] as TierPromise
      const alpha = this.alpha[i] as Float64Array
      const loss = this.loss[i] as Float64Array
      const rates = this.rateAt[this.kIndex[i] as number] as Float64Array
      for (let e = 0; e < alpha.length; e++) {
        alpha[e] = replayLevel(alpha[e] as number, rates[e] as number, k, q, n)
        loss[e] = replayLoss(loss[e] as number, λ, n)
      }
      const limit = this.offsetLimit(k)
      const step = this.outerRate * (0 - (1 - q))
      let d = this.offset[i] as number
      for (let s = 0; s < n; s++) {
        d = this.settleOutcome(i, true, d, step, -limit, limit, this.outerRate, true)
        this.floorLedger.settle(i, true)
      }
      this.offset[i] = d
      for (const row of this.expertQuotes[i] as U64[][]) row.fill(floor)
      this.plans[i] = plannedDebt(jEnd + 1, k) * this.outerRate
      this.gates[i] = this.floorGateOf(i)
      this.price(i, jEnd)
    }
  }
}
