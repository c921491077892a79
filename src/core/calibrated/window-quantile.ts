import type { U64 } from '../u64.js'
import type { OrderStatisticWindow } from '../window.js'

/**
 * The empirical quantile of a window at `level`: the least held value v with at least
 * ⌈level·n⌉ of the n values ≤ v (the window's maximum above level 1); `floor` when the window is
 * empty or level ≤ 0. The 1e-9 keeps a level that is a whole number of samples from rounding
 * up to the next one. O(1) for a sorted window, O(log W) for a treap.
 *
 * @example windowQuantile(w, 0.9, 100) // the 90th percentile of what w holds; 100 when w is empty
 */
export function windowQuantile(w: OrderStatisticWindow, level: number, floor: U64): U64 {
  const n = w.length
  if (n === 0) return floor
  const need = Math.ceil(level * n - 1e-9)
  if (need <= 0) return floor
  return w.valueAt(Math.min(n, need) - 1)
}

/**
 * A scaled quantile: `going` (the chain's going rate now) times the quantile at `level` of
 * `ratios` (samples divided by the going rate when each was quoted), rounded up and at least the
 * floor; `plain`'s quantile (the same samples unscaled) where that product is not a safe integer
 * (a going rate above 2^53).
 */
export function scaledQuantile(ratios: OrderStatisticWindow, level: number, going: number, plain: OrderStatisticWindow, floor: U64): U64 {
  const n = ratios.length
  const need = n === 0 ? 0 : Math.ceil(level * n - 1e-9)
  if (need <= 0) return floor
  const p = Math.ceil((ratios.valueAt((need < n ? need : n) - 1) as number) * going - 1e-9)
  if (!(p <= Number.MAX_SAFE_INTEGER)) return windowQuantile(plain, level, floor)
  return p < (floor as number) ? floor : p
}
