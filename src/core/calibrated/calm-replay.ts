/**
 * The learner's updates for a run of calm blocks replayed in one go (see
 * `PromiseLearner`'s calm run). In such a run every settled quote was the floor and every
 * k-block minimum is 0, so each expert's level moves by γ(1 − q) and its loss only decays; these
 * loops repeat exactly the arithmetic `PromiseLearner.settle` does for such an outcome, one
 * block at a time (a closed form would round differently), and stop early once the value no
 * longer moves (a clamped level, a loss decayed to 0 or to the smallest subnormal).
 */

/**
 * Runs an expert's ACI level through `n` covered outcomes: α ← min(1 + s, max(−s, α + γ(1 − q)))
 * with slack s = γ(k + 1), as `settle` writes it for a hit. O(min(n, blocks to the clamp)).
 */
export function replayLevel(alpha: number, γ: number, k: number, q: number, n: number): number {
  const slack = γ * (k + 1)
  const step = γ * (1 - q - 0)
  let a = alpha
  for (let s = 0; s < n; s++) {
    const next = Math.min(1 + slack, Math.max(-slack, a + step))
    if (next === a) break
    a = next
  }
  return a
}

/**
 * Runs an expert's discounted pinball loss through `n` outcomes it priced exactly (its quote
 * was the sample: no loss added, x + (−0) = x), i.e. `n` discounts by λ. O(min(n, blocks to
 * the fixed point)).
 */
export function replayLoss(loss: number, λ: number, n: number): number {
  let x = loss
  for (let s = 0; s < n; s++) {
    const next = λ * x
    if (next === x) break
    x = next
  }
  return x
}
