import type { TierPromise } from './calibrated-config.js'
import { PromiseLedger } from './promise-ledger.js'
import type { Requirement } from '../requirement.js'
import type { U64 } from '../u64.js'
import type { MultisetWindow } from '../multiset-window.js'
import { createWindow, type OrderStatisticWindow } from '../window.js'
import { CALM, ChainStateRing } from './chain-state.js'
import { FloorLedger, LONG_GATE_MAX } from './floor-ledger.js'
import { CALM_FLOOR_SAMPLES, FLOOR_GATE, FLOOR_SURPLUS, floorGate, floorKeeps } from './floor-rule.js'
import { scaledQuantile, windowQuantile } from './window-quantile.js'
import { PROMISE_LEARNER_DEFAULTS, STATES, type Expert, type PromiseLearnerOptions } from './promise-types.js'
import { CALM_FLOOR, CONDITIONED, FLOOR_RULE, LEVEL_MEAN_RATE, LONG_FLOOR, MARGINAL, NO_FLOOR_RULE, SCALED, SCALED_MARGIN, SHRINK_SCALED_MARGIN, rateAtHorizon } from './ensemble-rules.js'

/**
 * The experts of `PromiseLearner` and their updates: the windows of k-block minimum cutoffs
 * (marginal, per chain state, scaled by the going rate), each expert's ACI level, discounted
 * pinball loss and quotes in flight, and per promise the outer offset, the chosen expert and the
 * floor rule. `settle` and `price` are one block's updates; `PromiseLearner` decides when they
 * run (block by block, or a calm run applied at once) and answers the reads.
 */
export abstract class ExpertEnsemble extends PromiseLedger {
  readonly windows: readonly number[]
  readonly learningRates: readonly number[]
  readonly outerRate: number
  readonly discount: number
  protected readonly maxRate: number
  protected readonly experts: readonly Expert[]
  /** marginal[x][w], conditional[x][state][w]. */
  protected readonly marginal: MultisetWindow[][]
  protected readonly conditional: MultisetWindow[][][]
  protected readonly condSeq: Int32Array
  /** Per distinct k, the newest k-block minimum requirement and its cutoff price (set by `observe` before the settlements read them). */
  protected readonly minAt: Requirement[]
  protected readonly cutAt: Float64Array
  /** The experts' grid as flat arrays (the hot loops read these, not the objects); rateAt[x]: each expert's step at the x-th k (`rateAtHorizon`). */
  protected readonly rateAt: Float64Array[]
  protected readonly expertWindow: Int32Array
  protected readonly expertKind: Uint8Array
  /** The grid's order (see the constructor): marginal experts [0, conditionedFrom), conditioned [conditionedFrom, scaledAt), the scaled expert last. */
  private readonly conditionedFrom: number
  private readonly scaledAt: number
  /** scaledWindows[x]: the k-block minima divided by the going rate when they were quoted (the largest window's length). */
  protected readonly scaledWindows: MultisetWindow[]
  /** The chain's state and going rate after each of the newest max(k) + 1 blocks. */
  protected readonly chain: ChainStateRing
  /** Per promise and expert: α, discounted loss, and its quotes of the last k + 1 blocks (row t & slotMask[i], see `PromiseLedger`). */
  protected readonly alpha: Float64Array[]
  protected readonly loss: Float64Array[]
  protected readonly expertQuotes: U64[][][]
  /**
   * Per promise, expert e's terms of its ACI update fixed by (γ, k, q) at [4e, 4e + 4): the
   * clamp's bounds −γ(k + 1) and 1 + γ(k + 1), and the step γ(1 − q − miss) of a hit and of a
   * miss. Computed once as `settle` wrote them per outcome (the same doubles, so the same
   * levels), in one array so that the loop reads one typed array for the four.
   */
  private readonly alphaTerms: Float64Array[]
  protected readonly offset: Float64Array
  /**
   * Per promise, the running mean of the served expert's own level 1 − α over busy blocks
   * (`LEVEL_MEAN_RATE`; NaN before the first): `price` subtracts γ_o/γ of the level's distance
   * from it (see there). Calm blocks leave it as it is, so a calm run applied at once
   * (`PromiseLearner.catchUp`) gives the same mean as one applied block by block.
   */
  protected readonly levelMean: Float64Array
  /**
   * Per promise, the debt its tolerance plans for after the newest block, as a level
   * (`plannedDebt` × γ_o): set by `PromiseLearner` before `price` reads it, since computed in
   * `price` it left the optimizing compiler no budget to inline the window's quantile there.
   */
  protected readonly plans: Float64Array
  /**
   * Per promise, the short floor rule's gate after the newest block, as a level (`floorGate` ×
   * γ_o, narrower while the largest window is young): set by `PromiseLearner` beside `plans`, for
   * the same reason.
   */
  protected readonly gates: Float64Array
  /** The short floor rule's gate once the largest window is no longer young (`FLOOR_GATE` × γ_o). */
  protected readonly fullGate: number
  protected readonly chosen: Int32Array
  /**
   * Why promise i's newest quote is the floor: `FLOOR_RULE` (the floor keeps it on the recent
   * samples, or banked hits pay for it), `LONG_FLOOR` (only its record since the start says it
   * keeps it), `CALM_FLOOR` (the calm state's own samples are met by the floor at the served
   * level), or `NO_FLOOR_RULE`.
   */
  protected readonly floorRule: Uint8Array
  /** What the floor alone achieved on each promise since the start (the long-horizon floor rule). */
  protected readonly floorLedger: FloorLedger
  protected readonly quoted: U64[]
  /** The largest k. */
  protected readonly maxK: number
  /** Per promise, the newest block at which some expert quoted above the floor (−∞: none yet). */
  protected readonly lastHot: Float64Array
  /** Per promise, the level its newest quote was read at (the chosen expert's 1 − α plus the offset, less the floor's allowance where it applies). */
  protected readonly servedLevel: Float64Array
  /**
   * The newest block at which a calm stretch of at least `SINKING_RUN` blocks may still hold an
   * expert's level below q (set by `PromiseLearner`: the largest window's length after such a
   * stretch ends; −1 before one): the owing rule in `price` raises levels only up to it.
   */
  protected sunkUntil = -1

  constructor(promises: readonly TierPromise[], options: PromiseLearnerOptions) {
    super(promises, options.floor)
    this.windows = Object.freeze([...(options.windows ?? PROMISE_LEARNER_DEFAULTS.windows)])
    this.learningRates = Object.freeze([...(options.learningRates ?? PROMISE_LEARNER_DEFAULTS.learningRates)])
    this.outerRate = options.outerRate ?? PROMISE_LEARNER_DEFAULTS.outerRate
    this.discount = options.discount ?? PROMISE_LEARNER_DEFAULTS.discount
    this.maxRate = Math.max(...this.learningRates)
    const experts: Expert[] = []
    const slowest = Math.min(...this.learningRates)
    const largest = this.windows.length - 1
    // the largest window's conditioned experts and the scaled ones move at the slowest rate only: a long memory read
    // at a fast-moving level adds a noisy contender to the loss comparison and little price
    for (const conditioned of [false, true]) for (let w = 0; w < this.windows.length; w++) for (const γ of this.learningRates) if (!conditioned || w < largest || γ === slowest) experts.push({ w, γ, conditioned, scaled: false })
    // scaled experts read the largest window only: ratios to the going rate are steady, so a long memory of them costs little adaptivity;
    // the grid's order (marginal, conditioned, then the one scaled expert) is what `price` walks
    experts.push({ w: largest, γ: slowest, conditioned: false, scaled: true })
    this.experts = Object.freeze(experts)
    this.chain = new ChainStateRing(options.floor, Math.max(1, ...this.ks) + 1)
    this.marginal = this.ks.map(() => this.windows.map((w) => createWindow(w)))
    this.conditional = this.ks.map(() => Array.from({ length: STATES }, () => this.windows.map((w) => createWindow(w))))
    this.condSeq = new Int32Array(this.ks.length * STATES)
    this.minAt = this.ks.map(() => 0)
    this.cutAt = new Float64Array(this.ks.length)
    this.rateAt = this.ks.map((k) => Float64Array.from(experts, (e) => rateAtHorizon(e.γ, slowest, k)))
    this.expertWindow = Int32Array.from(experts, (e) => e.w)
    this.expertKind = Uint8Array.from(experts, (e) => (e.scaled ? SCALED : e.conditioned ? CONDITIONED : MARGINAL))
    this.scaledAt = experts.length - 1
    const firstConditioned = experts.findIndex((e) => e.conditioned)
    this.conditionedFrom = firstConditioned < 0 ? this.scaledAt : firstConditioned
    this.scaledWindows = this.ks.map(() => createWindow(this.windows[this.windows.length - 1] as number))
    this.alpha = promises.map((p) => new Float64Array(experts.length).fill(1 - p.q))
    this.loss = promises.map(() => new Float64Array(experts.length))
    this.expertQuotes = promises.map((_, i) => Array.from({ length: (this.slotMask[i] as number) + 1 }, () => new Array<U64>(experts.length).fill(options.floor)))
    this.alphaTerms = promises.map((p, i) => {
      const rates = this.rateAt[this.kIndex[i] as number] as Float64Array
      const terms = new Float64Array(4 * rates.length)
      rates.forEach((γ, e) => terms.set([-(γ * (p.k + 1)), 1 + γ * (p.k + 1), γ * (1 - p.q - 0), γ * (1 - p.q - 1)], 4 * e))
      return terms
    })
    this.offset = new Float64Array(promises.length)
    this.levelMean = new Float64Array(promises.length).fill(NaN)
    this.plans = new Float64Array(promises.length)
    this.gates = new Float64Array(promises.length)
    this.fullGate = FLOOR_GATE * this.outerRate
    this.chosen = new Int32Array(promises.length)
    this.floorRule = new Uint8Array(promises.length)
    this.floorLedger = new FloorLedger(promises)
    this.quoted = promises.map(() => options.floor)
    this.maxK = Math.max(1, ...this.ks)
    this.lastHot = new Float64Array(promises.length).fill(-Infinity)
    this.servedLevel = Float64Array.from(promises, (p) => p.q)
  }

  /** Forgets the ensemble's state and the ledger's outcomes. */
  protected clearEnsemble(): void {
    this.lastHot.fill(-Infinity)
    this.sunkUntil = -1
    for (const ws of this.marginal) for (const w of ws) w.clear()
    for (const per of this.conditional) for (const ws of per) for (const w of ws) w.clear()
    for (const w of this.scaledWindows) w.clear()
    this.chain.clear()
    this.condSeq.fill(0)
    this.promises.forEach((p, i) => {
      ;(this.alpha[i] as Float64Array).fill(1 - p.q)
      ;(this.loss[i] as Float64Array).fill(0)
      for (const row of this.expertQuotes[i] as U64[][]) row.fill(this.floor)
      this.quoted[i] = this.floor
    })
    this.offset.fill(0)
    this.levelMean.fill(NaN)
    this.plans.fill(0)
    this.gates.fill(0)
    this.promises.forEach((p, i) => (this.servedLevel[i] = p.q))
    this.chosen.fill(0)
    this.floorRule.fill(0)
    this.floorLedger.clear()
    this.clearLedger()
  }


  /** The window expert e of promise i reads now (its state's, when conditioned and not empty). */
  protected windowOf(i: number, e: number): OrderStatisticWindow {
    const x = this.kIndex[i] as number
    const ex = this.experts[e] as Expert
    const marginal = (this.marginal[x] as OrderStatisticWindow[])[ex.w] as OrderStatisticWindow
    if (ex.scaled) return this.scaledWindows[x] as OrderStatisticWindow
    if (!ex.conditioned) return marginal
    const w = ((this.conditional[x] as OrderStatisticWindow[][])[this.chain.state] as OrderStatisticWindow[])[ex.w] as OrderStatisticWindow
    return w.length === 0 ? marginal : w
  }

  protected settle(i: number, j: number): void {
    const k = this.horizon[i] as number
    const q = this.probability[i] as number
    const t = j - k
    if (t < 0) return
    const x = this.kIndex[i] as number
    const m = this.minAt[x] as Requirement
    const v = this.cutAt[x] as number
    const alpha = this.alpha[i] as Float64Array
    const loss = this.loss[i] as Float64Array
    const quotes = (this.expertQuotes[i] as U64[][])[t & (this.slotMask[i] as number)] as U64[]
    const λ = this.discount
    const terms = this.alphaTerms[i] as Float64Array
    // α ← min(1 + γ(k + 1), max(−γ(k + 1), α + γ(1 − q − miss))), its terms precomputed
    for (let e = 0; e < alpha.length; e++) {
      const p = quotes[e] as U64
      const at = 4 * e
      const step = p >= m ? (terms[at + 2] as number) : (terms[at + 3] as number)
      alpha[e] = Math.min(terms[at + 1] as number, Math.max(terms[at] as number, (alpha[e] as number) + step))
      const d = v - Number(p)
      loss[e] = λ * (loss[e] as number) + (d > 0 ? q * d : (q - 1) * d)
    }
    const covered = this.servedAt(i, t) >= m
    const limit = this.offsetLimit(k)
    const step = this.outerRate * ((covered ? 0 : 1) - (1 - q))
    // a miss moves d up; the clamp at +limit forgives misses, at −limit hits
    this.offset[i] = this.settleOutcome(i, covered, this.offset[i] as number, step, -limit, limit, this.outerRate, true)
  }

  protected price(i: number, j: number): void {
    const alpha = this.alpha[i] as Float64Array
    const loss = this.loss[i] as Float64Array
    const quotes = (this.expertQuotes[i] as U64[][])[j & (this.slotMask[i] as number)] as U64[]
    const x = this.kIndex[i] as number
    const marginal = this.marginal[x] as OrderStatisticWindow[]
    const conditional = (this.conditional[x] as OrderStatisticWindow[][])[this.chain.state] as OrderStatisticWindow[]
    const windows = this.expertWindow
    const floor = this.floor
    let best = 0
    let bestLoss = loss[0] as number
    // the window the best unscaled expert read (expert 0 is marginal), so its served quantile is read without looking it up again
    let bestWindow = marginal[windows[0] as number] as OrderStatisticWindow
    let hot = false
    const scaled = this.scaledAt
    const conditioned = this.conditionedFrom
    // the unscaled experts, in the grid's order: marginal ones read every recent sample, conditioned ones the current state's (every sample while it has none)
    for (let e = 0; e < scaled; e++) {
      const wi = windows[e] as number
      let w = marginal[wi] as OrderStatisticWindow
      if (e >= conditioned) {
        const c = conditional[wi] as OrderStatisticWindow
        if (c.length > 0) w = c
      }
      // the quantile at level 1 − α (see `windowQuantile`), inlined: this loop is the learner's hot path
      const n = w.length
      const need = n === 0 ? 0 : Math.ceil((1 - (alpha[e] as number)) * n - 1e-9)
      const p = need <= 0 ? floor : w.valueAt((need < n ? need : n) - 1)
      quotes[e] = p
      if (p !== floor) hot = true
      const l = loss[e] as number
      if (l < bestLoss) {
        best = e
        bestLoss = l
        bestWindow = w
      }
    }
    // the one scaled expert, last in the grid; served only when its loss beats the best unscaled one's by SCALED_MARGIN
    const sp = scaledQuantile(this.scaledWindows[x] as OrderStatisticWindow, 1 - (alpha[scaled] as number), this.chain.going, marginal[windows[scaled] as number] as OrderStatisticWindow, floor)
    quotes[scaled] = sp
    if (sp !== floor) hot = true
    const predictive = this.chain.predictive
    const scaledWins = predictive && (loss[scaled] as number) < (1 - SCALED_MARGIN) * bestLoss
    if (scaledWins) best = scaled
    if (hot) this.lastHot[i] = j
    this.chosen[i] = best
    const d = this.offset[i] as number
    const allowance = FLOOR_GATE * this.outerRate
    const keeps = this.floorKeeps(i)
    // the floor where it keeps the promise on the recent samples, or where hits already banked pay for its misses, or where
    // it keeps the promise over the long run and neither its own deficit nor the served quotes' has run past the long allowance
    // (at most LONG_GATE_MAX, so a larger offset skips the ledger's reads)
    // the gate is narrower while the largest window is young (`gates`); what the level forgives stays the full allowance
    const short = (d <= (this.gates[i] as number) && keeps) || d <= -FLOOR_SURPLUS * this.outerRate
    const rule = short || (d <= LONG_GATE_MAX * this.outerRate && this.longFloor(i, d))
    // what the floor rules may overdraw while the floor keeps the promise is not paid back at a premium: the short gate's
    // allowance where the floor keeps it on the recent samples, the long allowance where its record since the start does,
    // but the long one never beyond the debt the tolerance plans for (`plans`): the recent samples' say-so holds only while
    // the chain is in a state the floor keeps, which is what repays the short gate's overdraft, while the record since the
    // start also vouches for a chain that has turned busy for good, and a run ending busy repays nothing. Capping the short
    // gate's allowance too raised every quote of a stationary chain's first thousand blocks (the plan grows with the blocks
    // seen) and paid for coverage its floor-kept stretches were already buying (measured: bench/calibration.ts, iid-50).
    let forgiven = keeps ? allowance : 0
    const plan = this.plans[i] as number
    const longAllowance = this.floorLedger.allowance(i) * this.outerRate
    const long = longAllowance > plan ? plan : longAllowance
    if (long > forgiven && this.floorLedger.keeps(i)) forgiven = long
    const own = 1 - (alpha[best] as number)
    const excess = d - forgiven
    // Owing beyond the plan, a busy block is not discounted below q: an unconditioned expert's own level below q is raised
    // towards q by the share (excess/allowance)² of the gap, all of it from the short gate's allowance on. Why: an expert's
    // ACI level sinks below q through a calm stretch's hits (the floor gets in, every quote hits), and the outer offset banks
    // the same hits; a busy regime after it spent the surplus twice, and once the offset owed, the sunk level went on
    // discounting every busy block until misses raised it, so a run that ended busy ended short by that second debt
    // (measured: bench/calibration.ts, the switching chain at seed 4). Calm blocks keep the expert's level (the floor gets
    // in; the calm floor rule reads the level), and so does every level in surplus or within the plan, so the calm
    // stretches' hits are still spent, once. A conditioned expert keeps its level too: it reads each state's own samples
    // at one level, and after a calm block the floor gets in at any level, so the level that keeps q over all states sits
    // below q on busy blocks by construction, not because calm hits sank it; raising it over-kept a stationary chain's busy
    // blocks whenever the offset swung above the plan (measured: bench/calibration.ts, iid-50 at seeds 2 and 3, where nearly
    // all of the raise went to conditioned experts, and at seed 4's switching chain none of it). The square keeps the raise small while
    // the offset swings around the plan by the few outcomes of quotes settling, and makes the level continuous in the
    // offset. And only within the largest window after a calm stretch of at least `SINKING_RUN` blocks (`sunkUntil`): a
    // level sinks through a run of hits, which a chain without such a stretch never gave it, and there the raise only
    // paid for coverage the offset was already buying (measured: bench/calibration.ts, the drift chain, whose few calm
    // blocks come one at a time). Inline: a function call here, even one not taken, made every block of the calibrated
    // mode measurably slower (measured: bench/core.ts).
    const q = this.probability[i] as number
    // The outer offset integrates the served quotes' outcomes, and the served expert's own level integrates the same
    // outcomes when it is served as it quotes: the served level moved by γ + γ_o per outcome, not the γ the expert was
    // given, and the faster level wandered further on a stationary chain, where the quantile's convexity turns the wander
    // into overpayment (measured: bench/calibration.ts, iid-90 and iid-50, the conditioned expert served alone paid
    // more than the same expert's plain ACI). So γ_o/γ of the level's distance from its running mean (`levelMean`) is
    // taken off: the served level moves by γ per outcome around that mean, while the offset still carries the served
    // record and the coverage bound: with γ_o/γ at most 1, the shrunk level is a mix of the level and its mean, both
    // within the experts' clamp, so the offset's clamp still changes no quote. Not within the largest window after a long
    // calm stretch (`sunkUntil`): there the stretch's banked hits are spent through both integrators (see the owing rule
    // below) and a slower level left a switching chain's busy regimes over-kept; nor while the scaled expert is served or
    // its loss is within `SHRINK_SCALED_MARGIN` of the best: a market whose level moves, which the wander is tracking.
    let mean = this.levelMean[i] as number
    if (this.chain.state !== CALM) {
      mean = mean === mean ? mean + LEVEL_MEAN_RATE * (own - mean) : own
      this.levelMean[i] = mean
    }
    let level = own + excess
    if (j > this.sunkUntil && !scaledWins && mean === mean && (!predictive || (loss[scaled] as number) >= (1 + SHRINK_SCALED_MARGIN) * bestLoss)) {
      const share = this.outerRate / ((this.rateAt[x] as Float64Array)[best] as number)
      level -= (share < 1 ? share : 1) * (own - mean)
    }
    if (excess > 0 && own < q && this.chain.state !== CALM && j <= this.sunkUntil && this.expertKind[best] !== CONDITIONED) {
      const share = excess < allowance ? excess / allowance : 1
      level += (q - own) * share * share
    }
    this.servedLevel[i] = level
    // the calm floor's O(1) conditions first: a call that passes the level costs more than they do
    const calm = !rule && this.chain.state === CALM && level <= 1 && this.calmFloor(x, level)
    this.floorRule[i] = short ? FLOOR_RULE : rule ? LONG_FLOOR : calm ? CALM_FLOOR : NO_FLOOR_RULE
    this.quoted[i] = rule || calm ? floor : scaledWins ? this.expertPrice(i, best, level) : windowQuantile(bestWindow, level, floor)
  }

  /** The long-run floor rule for promise i at offset d (see `FloorLedger`). O(1). */
  private longFloor(i: number, d: number): boolean {
    const ledger = this.floorLedger
    const long = ledger.allowance(i)
    return d <= long * this.outerRate && ledger.deficit(i) <= long && ledger.keeps(i)
  }

  /**
   * At least ⌈level·n⌉ of the n samples taken after a calm block (the largest window's, at least
   * `CALM_FLOOR_SAMPLES` of them) were met by the floor: the calm state's own history says the
   * floor keeps the promise at the served level, whichever expert is served. `price` asks only
   * while the chain is calm and only at a level ≤ 1: beyond it the learner is paying back misses
   * and the window's maximum is what it serves. A calm block after a busy stretch is otherwise priced at the busy
   * stretch's going rate by the scaled expert, paying a premium on blocks the floor gets into.
   */
  private calmFloor(x: number, level: number): boolean {
    const w = ((this.conditional[x] as OrderStatisticWindow[][])[CALM] as OrderStatisticWindow[])[this.windows.length - 1] as OrderStatisticWindow
    return w.length >= CALM_FLOOR_SAMPLES && windowQuantile(w, level, this.floor) === this.floor
  }

  /** The short floor rule's gate for promise i on its k's largest window now, as a level (see `floorGate`). O(1). */
  protected floorGateOf(i: number): number {
    const w = (this.marginal[this.kIndex[i] as number] as OrderStatisticWindow[])[this.windows.length - 1] as OrderStatisticWindow
    return floorGate(w.length, w.capacity) * this.outerRate
  }

  /** The floor keeps promise i on all its k's recent samples (the largest window; see `floorKeeps`). O(1). */
  protected floorKeeps(i: number): boolean {
    const w = (this.marginal[this.kIndex[i] as number] as OrderStatisticWindow[])[this.windows.length - 1] as OrderStatisticWindow
    return floorKeeps(w, this.probability[i] as number, this.horizon[i] as number)
  }

  /** Expert e of promise i's price at `level`: its window's quantile, or for a scaled expert the going rate times its ratios' quantile. */
  protected expertPrice(i: number, e: number, level: number): U64 {
    const x = this.kIndex[i] as number
    const ex = this.experts[e] as Expert
    if (!ex.scaled) return windowQuantile(this.windowOf(i, e), level, this.floor)
    return scaledQuantile(this.scaledWindows[x] as OrderStatisticWindow, level, this.chain.going, (this.marginal[x] as OrderStatisticWindow[])[ex.w] as OrderStatisticWindow, this.floor)
  }

  /**
   * The outer offset's clamp for horizon k: 1 + (γ_max + γ_o)(k + 1) + max(`FLOOR_GATE`, `LONG_GATE_MAX`)·γ_o. At +limit
   * the served level, less the larger floor allowance where it applies, is at least 1 + γ_o(k + 1) for
   * the k + 1 quotes still in flight (the window's maximum), at −limit at most −γ_o(k + 1) (the
   * floor), so clamping changes no quote.
   */
  offsetLimit(k: number): number {
    return 1 + (this.maxRate + this.outerRate) * (k + 1) + Math.max(FLOOR_GATE, LONG_GATE_MAX) * this.outerRate
  }
}
