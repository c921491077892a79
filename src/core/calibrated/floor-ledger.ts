import type { TierPromise } from './calibrated-config.js'

/**
 * The long-horizon floor rule's allowance, in outcomes, for promises with q ≤ `LONG_GATE_Q`:
 * while the floor keeps a promise over the long run (`FloorLedger.keeps`), the floor is quoted
 * until the floor's own deficit since the start, and the served quotes' (the outer offset), reach
 * this many misses beyond 1 − q. A regime-switching chain whose floor keeps a promise over
 * thousands of blocks can run a deficit of this order in one busy regime and repay it in the calm
 * ones; the short gate (`FLOOR_GATE`, 30) left the floor there and paid for
 * coverage the promise did not need (measured: bench/calibration.ts).
 */
export const LONG_GATE = 90

/**
 * Above this q the long allowance shrinks with the square of the miss budget: `LONG_GATE` ×
 * ((1 − q)/(1 − `LONG_GATE_Q`))², 22.5 outcomes at q = 0.95. A debt run up under a wrong guess
 * that the floor keeps the promise is paid back at the window's top quantiles, and the higher q
 * is, the dearer those are and the fewer blocks per outcome the calm stretches repay ((1 − q)
 * each): at q = 0.95 an allowance linear in 1 − q still paid more than the plain ACI baseline, the
 * square did not (measured: bench/calibration.ts).
 */
export const LONG_GATE_Q = 0.9

/**
 * Below `LONG_GATE_Q` the long allowance grows with the miss budget, `LONG_GATE` × (1 − q)/(1 −
 * `LONG_GATE_Q`), up to this many outcomes (180 from q = 0.8 down), and so does the share of the
 * banked hits it may give back (`LONG_BANK_SHARE` × the square of that ratio, up to
 * `LONG_BANK_MAX`): the argument of `LONG_GATE_Q` turned round. A calm stretch repays (1 − q) of
 * the debt per block, so at q = 0.8 it repays twice what it does at 0.9 in the same blocks, and
 * the quantiles that would pay a busy regime back are the cheaper ones. With the allowance and
 * share of q = 0.9, a regime-switching chain whose floor kept q = 0.8 over the run had the promise
 * quoted above the floor through whole busy regimes, more than the 1% of blocks a floor-bound
 * promise may be, and over-kept beyond the tolerance (measured: bench/calibration.ts, the
 * switching chain at seeds 2 and 5). The cap bounds what a
 * wrong guess costs; the outer offset's clamp (`offsetLimit`) is wider by it.
 */
export const LONG_GATE_MAX = 180

/** The most of the banked hits (the floor's lowest deficit) the long allowance may give back, as a multiple of them (see `LONG_GATE_MAX`). */
export const LONG_BANK_MAX = 2

/** The long allowance of a promise whose cap is `cap` and whose floor's deficit was at its lowest `lowest` (see `FloorLedger.allowance`). */
function longAllowance(cap: number, lowest: number, bankShare: number): number {
  const banked = bankShare * -lowest
  return banked < cap ? banked : cap
}

/**
 * Samples per batch of the batch-means variance of the floor's hits: long enough that the
 * batches of a chain whose busy and calm stretches last tens of blocks are nearly independent, so
 * the variance counts how the floor's misses cluster (a busy regime misses for a whole batch).
 */
export const LONG_BATCH = 100

/**
 * How many standard errors (batch means) the floor's deficit since the start may reach before
 * the long rule gives up the floor: one. The allowance, not this test, bounds what a wrong guess
 * costs; the test only keeps the rule off promises the floor clearly fails over the long run.
 */
export const LONG_TEST_Z = 1

/**
 * The long rule's allowance is also at most this share of the most the floor ever banked beyond q
 * (the lowest its deficit has been): a floor that kept the promise with hits to spare over a long
 * stretch may give half of them back in a busy regime, one that never banked much may not. Without
 * it the rule held the floor of a short history through a deficit that no calm stretch had paid
 * for in advance, several points of coverage on the sample chain as `ledger-gas serve` loads it.
 */
export const LONG_BANK_SHARE = 0.5

/**
 * The floor's deficit is not credited below this many outcomes (hits banked beyond q): a chain
 * that was calm for a very long time and turns busy for good is then judged on its recent
 * history within a bounded number of blocks.
 */
export const LONG_BANK = 1000

/**
 * What the floor alone would have achieved on each promise since the start: its deficit, misses
 * − (1 − q)·T over the T settled samples (clamped at −`LONG_BANK`), its lowest value, and the
 * batch-means variance of its hits. `keeps` says whether the floor keeps the promise over the
 * long run (its deficit not significantly above 0), `allowance` how far its deficit may run
 * meanwhile. O(1) per sample and per read; memory O(promises).
 */
export class FloorLedger {
  /** Per promise: 1 − q, the deficit and its lowest value, samples seen. */
  private readonly missBudget: Float64Array
  /** Per promise: the long allowance before the banked-hits cap (`LONG_GATE`, shrunk above `LONG_GATE_Q`, grown below it up to `LONG_GATE_MAX`), fixed by q. */
  private readonly caps: Float64Array
  /** Per promise: the share of the banked hits the long allowance may give back (`LONG_BANK_SHARE`, grown below `LONG_GATE_Q` up to `LONG_BANK_MAX`), fixed by q. */
  private readonly bankShares: Float64Array
  private readonly deficits: Float64Array
  private readonly lowest: Float64Array
  /** Per promise: `allowance(i)`, updated where `lowest` moves, so that the pricing of every block reads it in one load. */
  private readonly allowances: Float64Array
  private readonly seen: Float64Array
  /** Per promise: samples and floor hits in the open batch; closed batches, Σ of their hit shares and of their squares. */
  private readonly inBatch: Int32Array
  private readonly batchHits: Int32Array
  private readonly batches: Float64Array
  private readonly shareSum: Float64Array
  private readonly shareSumSq: Float64Array

  constructor(promises: readonly TierPromise[]) {
    const n = promises.length
    this.missBudget = Float64Array.from(promises, (p) => 1 - p.q)
    this.caps = Float64Array.from(this.missBudget, (budget) => {
      const share = budget / (1 - LONG_GATE_Q)
      return share >= 1 ? Math.min(LONG_GATE_MAX, LONG_GATE * share) : LONG_GATE * share * share
    })
    this.bankShares = Float64Array.from(this.missBudget, (budget) => {
      const share = budget / (1 - LONG_GATE_Q)
      return share >= 1 ? Math.min(LONG_BANK_MAX, LONG_BANK_SHARE * share * share) : LONG_BANK_SHARE
    })
    this.deficits = new Float64Array(n)
    this.lowest = new Float64Array(n)
    this.allowances = Float64Array.from(this.caps, (cap, i) => longAllowance(cap, 0, this.bankShares[i] as number))
    this.seen = new Float64Array(n)
    this.inBatch = new Int32Array(n)
    this.batchHits = new Int32Array(n)
    this.batches = new Float64Array(n)
    this.shareSum = new Float64Array(n)
    this.shareSumSq = new Float64Array(n)
  }

  /** Counts promise i's newest sample: whether the floor alone would have been included. */
  settle(i: number, met: boolean): void {
    let deficit = (this.deficits[i] as number) - (this.missBudget[i] as number)
    if (!met) deficit += 1
    else if (deficit < -LONG_BANK) deficit = -LONG_BANK
    this.deficits[i] = deficit
    if (deficit < (this.lowest[i] as number)) {
      this.lowest[i] = deficit
      this.allowances[i] = longAllowance(this.caps[i] as number, deficit, this.bankShares[i] as number)
    }
    this.seen[i] = (this.seen[i] as number) + 1
    const hits = (this.batchHits[i] as number) + (met ? 1 : 0)
    const inBatch = (this.inBatch[i] as number) + 1
    if (inBatch < LONG_BATCH) {
      this.inBatch[i] = inBatch
      this.batchHits[i] = hits
      return
    }
    const share = hits / LONG_BATCH
    this.batches[i] = (this.batches[i] as number) + 1
    this.shareSum[i] = (this.shareSum[i] as number) + share
    this.shareSumSq[i] = (this.shareSumSq[i] as number) + share * share
    this.inBatch[i] = 0
    this.batchHits[i] = 0
  }

  /** The floor's deficit on promise i since the start, in outcomes (negative: hits banked). */
  deficit(i: number): number {
    return this.deficits[i] as number
  }

  /**
   * The floor keeps promise i over the long run: its deficit is at most `LONG_TEST_Z` standard
   * errors, √(v·T), with v the larger of q(1 − q) (independent samples) and the batch-means
   * variance per sample (`LONG_BATCH`·the variance of the batches' hit shares, once two batches
   * are closed), so misses that cluster in busy regimes count as the few events they are.
   */
  keeps(i: number): boolean {
    const deficit = this.deficits[i] as number
    // a floor at or ahead of q keeps it whatever the variance (the bound below is never negative)
    if (deficit <= 0) return true
    const budget = this.missBudget[i] as number
    const nb = this.batches[i] as number
    let v = budget * (1 - budget)
    if (nb >= 2) {
      const mean = (this.shareSum[i] as number) / nb
      const batch = (LONG_BATCH * ((this.shareSumSq[i] as number) / nb - mean * mean) * nb) / (nb - 1)
      if (batch > v) v = batch
    }
    return deficit <= LONG_TEST_Z * Math.sqrt(v * (this.seen[i] as number))
  }

  /** The long rule's allowance for promise i, in outcomes (see `LONG_GATE`, `LONG_GATE_Q`, `LONG_GATE_MAX`, `LONG_BANK_SHARE`). */
  allowance(i: number): number {
    return this.allowances[i] as number
  }

  /** Forgets every sample. */
  clear(): void {
    for (const a of [this.deficits, this.lowest, this.seen, this.batches, this.shareSum, this.shareSumSq]) a.fill(0)
    this.caps.forEach((cap, i) => (this.allowances[i] = longAllowance(cap, 0, this.bankShares[i] as number)))
    this.inBatch.fill(0)
    this.batchHits.fill(0)
  }
}
