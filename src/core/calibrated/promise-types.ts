import type { U64 } from '../u64.js'

/** How the learner is built: the floor and its grid of experts. */
export interface PromiseLearnerOptions {
  /** The chain's floor (`min_gas_unit_price`): no quote is below it. */
  floor: U64
  /** Windows of the experts, in k-block samples (the largest bounds the memory). */
  windows?: readonly number[] | undefined
  /** Learning rates γ of the experts' own adaptive-conformal levels. */
  learningRates?: readonly number[] | undefined
  /** Step of the outer calibration of the served price (the coverage guarantee rests on it). */
  outerRate?: number | undefined
  /** Per-block discount of the experts' pinball losses (nearer 1: longer memory of who was right). */
  discount?: number | undefined
  /**
   * Count calm blocks that change no quote and apply them together when next needed (default
   * true; see `PromiseLearner.observe`). `false` applies every block as it comes: the same
   * answers, for tests that hold the two equal.
   */
  calmRuns?: boolean | undefined
}

/**
 * Defaults: windows 120 and 1,000, γ 0.005 and 0.05, outer γ 0.0025, loss discount 0.999 (chosen
 * by `bench/calibration.ts`: a finer grid of 4 windows × 3 rates paid about the same and cost
 * three times as much per block; a loss memory of about 1,000 blocks lets a stationary chain
 * settle on its best expert instead of chasing the last few hundred blocks' noise; an outer step
 * half the slow experts' moves the served level half as far per outcome, so a run of misses is
 * paid back by slightly higher quotes over more blocks rather than by the window's top
 * quantiles, which cost far more per outcome regained: it paid less on the generated chains at
 * two seeds, for a coverage bound twice as wide in outcomes).
 */
export const PROMISE_LEARNER_DEFAULTS = Object.freeze({
  windows: Object.freeze([120, 1000]),
  learningRates: Object.freeze([0.005, 0.05]),
  outerRate: 0.0025,
  discount: 0.999,
})

/**
 * The chain's state after a block, as the learner conditions on it: 0 calm (the block was not
 * full); 1, 2, 3 busy (it was), its cutoff in the low, middle or high tercile of the recent full
 * blocks' cutoffs.
 */
export type ChainState = 0 | 1 | 2 | 3

/** Chain states the conditioned experts keep apart. */
export const STATES = 4

/** The cutoff tercile of each state (`null`: calm), as `explain()` names it. */
export const TERCILES: readonly ('low' | 'mid' | 'high' | null)[] = Object.freeze([null, 'low', 'mid', 'high'])

/** What drove a promise's current quote. */
export interface PromiseExplain {
  /** The expert whose quantile is served: its window, learning rate, whether it reads only samples taken in the current state, and whether it reads samples scaled by the going rate. */
  expert: { window: number; learning_rate: number; conditioned: boolean; scaled: boolean }
  /** The chain state the quote was made in (`calm`: the newest block was not full). */
  state: 'calm' | 'busy'
  /** When busy, the tercile of the newest block's cutoff among the recent full blocks' cutoffs (the conditioned experts' finer state); `null` when calm. */
  cutoff_tercile: 'low' | 'mid' | 'high' | null
  /** The expert's own level 1 − α and the outer correction added to it. */
  level: number
  offset: number
  /** The floor alone met the promise on the expert's samples. */
  floor_bound: boolean
  /** Samples the expert's quantile was read from. */
  samples: number
}

/** One expert of the grid: a window, a learning rate, and whether it reads only the current state's samples. */
export interface Expert {
  /** Index into the window list. */
  w: number
  γ: number
  conditioned: boolean
  /** Reads the samples divided by the chain's going rate when each was quoted, and quotes the going rate now times their quantile. */
  scaled: boolean
}
