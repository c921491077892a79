import type { OrderStatisticWindow } from '../window.js'

/**
 * How far below q the floor's share of recent samples may fall, in standard errors, before the
 * floor rule gives up the floor: three, because neighbouring k-block minima overlap and a
 * chain's busy stretches cluster, so the share swings wider than independent samples' standard
 * error and a floor that keeps the promise over the long run would otherwise be left for whole
 * stretches; a floor that clearly fails is still left, and the outer offset's gate bounds what
 * the rule costs meanwhile.
 */
export const FLOOR_TEST_Z = 3

/**
 * The floor rule runs while the outer offset is at most this many outcomes above its start
 * (offset ≤ FLOOR_GATE·γ_o): the misses it causes beyond 1 − q raise the offset and switch it
 * off, so it can overdraw the promise by at most this many misses (plus those in flight) before
 * the ensemble prices the promise and pays them back. Thirty rather than a handful: a promise
 * the floor barely keeps (floor share a point above q) otherwise leaves the floor after every
 * short run of misses and pays above-floor prices for coverage it did not need; and no more,
 * since each outcome of gate is an outcome a tier may fall short of q by before it pays back.
 */
export const FLOOR_GATE = 30

/**
 * While the largest window is young (fewer than `FLOOR_PRIOR_SAMPLES` samples), the floor rule's
 * gate is this many outcomes, growing to `FLOOR_GATE` with the samples from half of them on
 * (`floorGate`). A young window's floor test passes on little evidence (it counts the prior and
 * reads its variance k times over), so on a chain whose floor does not keep the promise the rule
 * quoted the floor through a chain's first blocks until it had overdrawn the whole gate, and the
 * rest of the run paid that debt back at the window's quantiles (measured: bench/calibration.ts,
 * iid-90 at seeds 1, 3, 4 and 5). Half the gate still holds a floor-bound promise at the floor
 * through the misses of a busy start; a smaller one lifted a promise the floor barely keeps (iid-50,
 * 0.8 within 3) off the floor early and paid more.
 */
export const FLOOR_GATE_YOUNG = 15

/**
 * The floor rule's gate, in outcomes, on a window holding `seen` samples of at most `capacity`:
 * `FLOOR_GATE_YOUNG` up to half of `FLOOR_PRIOR_SAMPLES` (or the capacity, if smaller), then
 * growing in proportion to `FLOOR_GATE` once the prior has faded.
 */
export function floorGate(seen: number, capacity: number): number {
  const young = Math.min(FLOOR_PRIOR_SAMPLES, capacity)
  if (seen >= young) return FLOOR_GATE
  const grown = (FLOOR_GATE * seen) / young
  return grown > FLOOR_GATE_YOUNG ? grown : FLOOR_GATE_YOUNG
}

/**
 * The floor is also quoted while the outer offset is at least this many outcomes below its
 * start (offset ≤ −FLOOR_SURPLUS·γ_o): the promise has banked that many hits beyond q, mostly in
 * stretches where the floor alone was included, and spending them on floor quotes costs nothing
 * while spending them on a lowered quantile of a busy state's samples still pays above the floor.
 * Thirty: well above the offset's block-to-block swing, so the rule fires on a real surplus and
 * not on the noise of a promise that is being kept at q.
 */
export const FLOOR_SURPLUS = 30

/**
 * The learner's planned debt is at most this share of the blocks seen (see `plannedDebt`): 1%,
 * the shortfall below q issue 20 holds a promise's coverage to.
 */
export const PLANNED_DEBT_SHARE = 0.01

/**
 * The most a promise "within k blocks" may plan to owe after `blocks` blocks, in outcomes:
 * `PLANNED_DEBT_SHARE` of the blocks, less the k + 1 quotes still in flight, and never below 0.
 *
 * Why: the long allowance of `FloorLedger`, which `price` subtracts from the served level while
 * the floor's record since the start says it keeps the promise, plans a debt: it bets that a
 * calm stretch repays what a busy one overdraws, and that record vouches for a chain that has
 * turned busy for good too. A chain that ends busy repays nothing, so a plan beyond the
 * tolerance ends the tier beyond it (measured: bench/calibration.ts, the switching chain at
 * seed 4, where the long allowance planned three times the tolerance). The quotes in flight are
 * owed already when the chain has just turned busy, and the offset counts them only as they
 * settle. On a long run the allowance stays the bound; on a short one, where each outcome is a
 * larger part of the coverage, the plan is smaller. The short gate's allowance (`FLOOR_GATE`) is
 * not capped: it applies only while the recent samples say the floor keeps the promise, a state
 * that repays it. This bounds only the debt planned once the floor is left: the floor rules
 * themselves may still hold the floor through their allowances.
 *
 * @example plannedDebt(3000, 3) // 26
 */
export function plannedDebt(blocks: number, k: number): number {
  const plan = PLANNED_DEBT_SHARE * blocks - (k + 1)
  return plan > 0 ? plan : 0
}

/**
 * Until the window holds `FLOOR_PRIOR_SAMPLES` samples, the floor test counts up to this many
 * samples more, all met by the floor, fading linearly to none as the window fills: a learner that
 * has seen a handful of k-block minima presumes the floor keeps the promise instead of leaving it
 * on the first few busy blocks. Without it a chain that starts busy has a floor-bound promise
 * quoted above the floor for its first stretch (what the benchmark called a start-up effect); with
 * a presumption that never faded, promises the floor only nearly keeps were held at the floor
 * for hundreds of blocks and paid the misses back at a premium (measured: bench/calibration.ts).
 */
export const FLOOR_PRIOR = 30

/** Samples in the window at which `FLOOR_PRIOR` has faded to nothing (the window's capacity, if smaller). */
export const FLOOR_PRIOR_SAMPLES = 100

/**
 * Samples taken after a calm block that the calm-state floor rule needs before it reads them
 * (`ExpertEnsemble`): fewer say little about how often a calm block is followed by calm ones.
 */
export const CALM_FLOOR_SAMPLES = 100

/**
 * The floor keeps a promise "within k blocks with probability q" on `samples` (the largest
 * window of k-block minimum cutoffs, floor-met samples flagged): the share the floor alone met is
 * not significantly below q, i.e. at least q − z·√(q(1 − q)/n) with z = `FLOOR_TEST_Z`, n counting
 * the fading prior of floor-met samples (`FLOOR_PRIOR`). Until the prior has faded the variance
 * counts k times over: neighbouring k-block minima share up to k − 1 blocks, so a window's first
 * samples come from a handful of stretches, and one busy stretch at the start otherwise reads as
 * many misses and lifts a promise the floor keeps off the floor for its first blocks. A promise the floor keeps over the long
 * run then stays at the floor through sampling noise and short busy stretches, and one it does
 * not keep leaves it once the evidence is clear. A floor that met none of the window's samples
 * keeps nothing, however few they are. With no sample yet, the prior alone says the floor keeps
 * it. O(1): the window counts its flagged samples.
 */
export function floorKeeps(samples: OrderStatisticWindow, q: number, k = 1): boolean {
  const seen = samples.length
  const met = samples.flaggedCount
  if (seen > 0 && met === 0) return false
  const young = Math.min(FLOOR_PRIOR_SAMPLES, samples.capacity)
  const prior = FLOOR_PRIOR * Math.max(0, 1 - seen / young)
  const n = seen + prior
  if (n === 0) return false
  const overlap = seen < young ? k : 1
  return met + prior >= (q - FLOOR_TEST_Z * Math.sqrt((q * (1 - q) * overlap) / n)) * n - 1e-9
}
