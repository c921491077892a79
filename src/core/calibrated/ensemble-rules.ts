/**
 * The expert ensemble's rules that are constants of the grid (`ExpertEnsemble`): when the scaled
 * expert is served, how the served level is shrunk towards its mean, each expert's step per
 * horizon, the calm stretch that can sink a level, and the names of the expert kinds and of the
 * reasons a quote is the floor.
 */

/**
 * A scaled expert is served only when its discounted pinball loss is at least this share below
 * the best unscaled expert's. Dividing by a going rate read off a few blocks adds that rate's
 * noise: on a stationary chain it wins the loss comparison by chance for stretches and then pays
 * more for the same coverage, while on a market whose level moves the scaled experts' lead is
 * far larger than this margin. And only while the going rate predicts the market
 * (`ChainStateRing.predictive`): on independent blocks the lead at long horizons can exceed any
 * margin and still pay more (see there).
 */
export const SCALED_MARGIN = 0.1

/**
 * Rate of the running mean of the served expert's own level (`levelMean`), per busy block:
 * about the largest window's memory, so that the mean is where the level sits, and what moves
 * the level away from it for a few hundred blocks is the ACI's wander rather than a new level.
 */
export const LEVEL_MEAN_RATE = 0.001

/**
 * The shrink of the served level towards its mean (see `price`) applies only while the scaled
 * expert's discounted loss is at least this share above the best unscaled expert's. A scaled
 * expert that close to the best says the market's level moves, and there the level's slow wander
 * is tracking it rather than noise: shrinking it paid more on the drift chain (measured:
 * bench/calibration.ts, seeds 2 to 5), while on stationary chains the scaled expert's loss stays
 * well above the margin. Only while the going rate predicts the market (`ChainStateRing.predictive`):
 * where it does not, a scaled expert near the best loss is its rate's noise winning by chance, not
 * a moving level, and the shrink applies.
 */
export const SHRINK_SCALED_MARGIN = 0.2

/**
 * An expert's ACI step γ at horizon k: γ/k, but not below the grid's slowest step. Its level
 * learns of a quote's outcome k blocks late, when k more quotes are already in flight at
 * levels that did not know it, so a run of misses moves the level about γ·k before the first
 * correction lands; dividing by k keeps that overshoot what it is at k = 1. A fast expert at
 * k = 10 otherwise swung past the window's maximum on a chain of independent blocks (its level
 * above 1 for stretches) and paid 1.3x the plain ACI baseline for the same coverage (measured:
 * bench/calibration.ts); the slowest step already moves little per horizon.
 */
export function rateAtHorizon(γ: number, slowest: number, k: number): number {
  const r = γ / k
  return r > slowest ? r : Math.min(γ, slowest)
}

/**
 * Calm blocks in a row that can sink an expert's level below q (see `sunkUntil`): at the slow
 * experts' step, fifty hits in a row lower a level by 0.25·(1 − q), a shift that a handful of
 * calm blocks, as i.i.d. and drifting chains give, does not make. Switching and bursty chains have calm
 * stretches of hundreds of blocks.
 */
export const SINKING_RUN = 50

/** Expert kinds: every recent sample, only those of the current state, or samples scaled by the going rate. */
export const MARGINAL = 0
export const CONDITIONED = 1
export const SCALED = 2

/**
 * Why promise i's newest quote is the floor (`floorRule`): not by a floor rule; the floor rule on
 * the recent samples or banked hits; the calm state's samples; the floor's long-run record alone.
 */
export const NO_FLOOR_RULE = 0
export const FLOOR_RULE = 1
export const CALM_FLOOR = 2
export const LONG_FLOOR = 3
