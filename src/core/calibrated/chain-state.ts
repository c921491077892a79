import { cutoffPrice, type Requirement } from '../requirement.js'
import { ringSize } from '../ring-size.js'
import type { U64 } from '../u64.js'
import { createWindow } from '../window.js'
import type { ChainState } from './promise-types.js'

/**
 * The chain's going rate, which the scaled experts divide by, is the median cutoff of this many
 * newest full blocks: recent enough to follow a drifting or switching market within a few
 * blocks, and a median so that one outlier block does not set it.
 */
const LEVEL_BLOCKS = 3

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
 * where fullness alone is independent from block to block) and the going rate (the median
 * cutoff of the newest `LEVEL_BLOCKS` full blocks). Both are kept for the last `span` blocks, so
 * a sample settled k ≤ span − 1 blocks later is filed under the state and rate it was quoted in.
 * O(log W) per block (two order-statistic windows); memory fixed.
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
  private readonly recentFull = createWindow(LEVEL_BLOCKS)
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

  /** Takes block j's requirement (0 when it was not full). O(log W). */
  push(req: Requirement, j: number): void {
    if (req === 0) this.state = CALM
    else {
      const c = cutoffPrice(req, this.floor)
      const cuts = this.fullCuts
      const n = cuts.length
      this.state = n < 3 ? BUSY_MID : c <= cuts.valueAt(Math.floor(n / 3)) ? BUSY_LOW : c <= cuts.valueAt(Math.floor((2 * n) / 3)) ? BUSY_MID : BUSY_HIGH
      cuts.push(c, this.fullSeq, false)
      this.recentFull.push(c, this.fullSeq++, false)
      this.going = levelOf(this.recentFull.valueAt(this.recentFull.length >> 1))
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
    this.recentFull.clear()
    this.fullCuts.clear()
    this.fullSeq = 0
    this.state = CALM
    this.going = levelOf(this.floor)
    this.states.fill(0)
    this.levels.fill(this.going)
  }
}
