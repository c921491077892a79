import { cutoffPrice, type Requirement } from '../requirement.js'
import { ringSize } from '../ring-size.js'
import type { U64 } from '../u64.js'
import { createWindow } from '../window.js'
import type { ChainState } from './promise-types.js'

/**
 * The chain's going rate, which the scaled experts divide by, is a running mean of full blocks'
 * log cutoffs, moved this share of the way to each new one (a geometric mean weighted towards the
 * newest few blocks): recent enough to follow a drifting or switching market within a few
 * blocks. A market's cutoffs scatter around its level by a factor, so a mean of logs averages
 * that scatter out of the rate; the median of the newest three full blocks' cutoffs it replaces
 * kept one block's scatter in every rate, and the ratios to it scattered wider: at the same
 * coverage the scaled expert paid more on a drifting chain (measured: bench/calibration.ts). Half
 * the way: a slower mean averaged more scatter out on a drifting chain but followed a switching
 * chain's regimes late (its older blocks weigh on for longer), and paid more there.
 */
export const LEVEL_RATE = 0.5

/**
 * Whether the going rate predicts the market: each full block's log cutoff is compared with the
 * going rate's (before the block moves it) and with a slow running mean of log cutoffs
 * (`LONG_RATE`: about a hundred full blocks' memory), and their squared errors are summed
 * discounted by `PREDICT_DISCOUNT` per full block. The going rate predicts while its error sum is
 * below `PREDICT_SHARE` of the slow mean's. Where a market's level moves (a drift, a switch of
 * regime) the newest blocks say more about the next than the slow mean does; where each block
 * draws its own level (independent blocks) a mean of a few blocks misses by more than the slow
 * one, and a scaled expert's ratios carry that noise: its pinball loss can still beat the
 * unscaled experts' at long horizons while it pays more at the same coverage (measured:
 * bench/calibration.ts, iid-90 at k = 10).
 */
const LONG_RATE = 0.01
const PREDICT_DISCOUNT = 0.99
const PREDICT_SHARE = 0.85

/**
 * A full block's state is the tercile of its cutoff among this many newest full blocks' cutoffs:
 * enough for stable terciles, few enough to follow a market whose level moves. Below three
 * cutoffs every full block is `BUSY_MID` (no terciles yet).
 */
const TERCILE_BLOCKS = 120

/** States: the newest block was not full, or was full with a cutoff in the low, middle or high tercile of recent full blocks'. */
export const CALM = 0
export const BUSY_LOW = 1
export const BUSY_MID = 2
export const BUSY_HIGH = 3

/** A price as a positive going rate to divide by (at least 1, so a zero floor divides safely). */
export function levelOf(price: U64): number {
  const n = Number(price)
  return n < 1 ? 1 : n
}

/**
 * What the learner reads off the newest blocks besides their k-block minima: the chain's state
 * after each block (calm, or full with its cutoff's tercile among recent full blocks': a high
 * cutoff says the next blocks are likely dear too, a low one that the market is easing, even
 * where fullness alone is independent from block to block), the going rate (a running
 * geometric mean of full blocks' cutoffs, `LEVEL_RATE`) and whether the going rate predicts the
 * market (`predictive`). The state and the going rate are kept for the last `span` blocks, so
 * a sample settled k ≤ span − 1 blocks later is filed under the state and rate it was quoted in.
 * O(log W) per block (the terciles' order-statistic window; the going rate and its test are O(1)); memory fixed.
 */
export class ChainStateRing {
  /** The state after the newest block. */
  state: ChainState = CALM
  /** The going rate after the newest block. */
  going: number
  private readonly floor: U64
  /** Storage size − 1 (`ringSize(span)`: at least `span` slots, so a slot is a mask). */
  private readonly mask: number
  /** states[t & mask], levels[t & mask]: after block t. */
  private readonly states: Uint8Array
  private readonly levels: Float64Array
  /** The running mean of full blocks' log cutoffs (NaN before the first full block). */
  private logLevel = NaN
  /** The slow running mean of full blocks' log cutoffs, and the discounted squared errors of it and of `logLevel` (see `PREDICT_SHARE`). */
  private longLog = NaN
  private errGoing = 0
  private errLong = 0
  /** The going rate predicts the market (see `PREDICT_SHARE`): false before two full blocks. */
  predictive = false
  private readonly fullCuts = createWindow(TERCILE_BLOCKS)
  private fullSeq = 0

  constructor(floor: U64, span: number) {
    this.floor = floor
    const size = ringSize(span)
    this.mask = size - 1
    this.going = levelOf(floor)
    this.states = new Uint8Array(size)
    this.levels = new Float64Array(size).fill(this.going)
  }

  /** Takes block j's requirement (0 when it was not full). O(log W): the terciles' window; the going rate is O(1). */
  push(req: Requirement, j: number): void {
    if (req === 0) this.state = CALM
    else {
      const c = cutoffPrice(req, this.floor)
      const cuts = this.fullCuts
      const n = cuts.length
      this.state = n < 3 ? BUSY_MID : c <= cuts.valueAt(Math.floor(n / 3)) ? BUSY_LOW : c <= cuts.valueAt(Math.floor((2 * n) / 3)) ? BUSY_MID : BUSY_HIGH
      cuts.push(c, this.fullSeq++, false)
      const v = Math.log(levelOf(c))
      const l = this.logLevel
      if (l === l) {
        const g = v - l
        const o = v - this.longLog
        this.errGoing = PREDICT_DISCOUNT * this.errGoing + g * g
        this.errLong = PREDICT_DISCOUNT * this.errLong + o * o
        this.predictive = this.errGoing < PREDICT_SHARE * this.errLong
        this.logLevel = l + LEVEL_RATE * g
        this.longLog += LONG_RATE * o
      } else {
        this.logLevel = v
        this.longLog = v
      }
      this.going = Math.exp(this.logLevel)
    }
    this.states[j & this.mask] = this.state
    this.levels[j & this.mask] = this.going
  }

  /**
   * Files blocks `first` … `first + n − 1` as calm blocks that `push` was not given (a calm run,
   * see `PromiseLearner.observe`): a calm block leaves the going rate as it is, so each is filed
   * calm at today's rate, as `push` would have. O(min(n, span)).
   */
  pushCalm(first: number, n: number): void {
    this.state = CALM
    const from = Math.max(first, first + n - this.mask - 1)
    for (let j = from; j < first + n; j++) {
      this.states[j & this.mask] = CALM
      this.levels[j & this.mask] = this.going
    }
  }

  /** The state after block t (t within the last `span` blocks); calm before the first block (t < 0). */
  stateAt(t: number): ChainState {
    return t < 0 ? CALM : (this.states[t & this.mask] as ChainState)
  }

  /** The going rate after block t (t within the last `span` blocks); the floor's before the first block. */
  levelAt(t: number): number {
    return t < 0 ? levelOf(this.floor) : (this.levels[t & this.mask] as number)
  }

  /** Forgets every block. */
  clear(): void {
    this.logLevel = NaN
    this.longLog = NaN
    this.errGoing = 0
    this.errLong = 0
    this.predictive = false
    this.fullCuts.clear()
    this.fullSeq = 0
    this.state = CALM
    this.going = levelOf(this.floor)
    this.states.fill(0)
    this.levels.fill(this.going)
  }
}
