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
 * The highest level of the ratios a scaled quote reads in full (`scaledQuantile`): above it, the
 * quote is capped at the larger of this quantile's price and the largest sample unscaled. A
 * ratio filed against a stale going rate (a burst's first blocks divided by the cutoff of the
 * last full block, hundreds of blocks before) can be many times every other, and a quote read at
 * the window's top (a promise paying back misses reads beyond level 1) would then be that
 * outlier times today's rate: several times any requirement the window holds, for coverage no
 * sample needed. One percent of samples is enough room for a market whose level rises
 * (measured: bench/calibration.ts).
 */
export const SCALED_TOP_LEVEL = 0.99

/**
 * A scaled quantile: `going` (the chain's going rate now) times the quantile at `level` of
 * `ratios` (samples divided by the going rate when each was quoted), rounded up and at least the
 * floor; `plain`'s quantile (the same samples unscaled) where that product is not a safe integer
 * (a going rate above 2^53). Above `SCALED_TOP_LEVEL` it is at most the larger of the quote at
 * that level and `plain`'s maximum, so one outlying ratio does not set the price.
 *
 * @example scaledQuantile(ratios, 0.9, 250, plain, 100) // 250 × the ratios' 90th percentile, rounded up
 */
export function scaledQuantile(ratios: OrderStatisticWindow, level: number, going: number, plain: OrderStatisticWindow, floor: U64): U64 {
  const n = ratios.length
  const need = n === 0 ? 0 : Math.ceil(level * n - 1e-9)
  if (need <= 0) return floor
  let p = Math.ceil((ratios.valueAt((need < n ? need : n) - 1) as number) * going - 1e-9)
  if (!(p <= Number.MAX_SAFE_INTEGER)) return windowQuantile(plain, level, floor)
  const top = Math.ceil(SCALED_TOP_LEVEL * n - 1e-9)
  // the cap is read only above the top level and only where the quote is above every sample unscaled: O(1) otherwise
  if (need > top && top > 0 && plain.length > 0 && p > plain.valueAt(plain.length - 1)) {
    const largest = Number(plain.valueAt(plain.length - 1))
    const atTop = Math.ceil((ratios.valueAt(top - 1) as number) * going - 1e-9)
    const cap = atTop > largest ? atTop : largest
    if (p > cap) p = cap
  }
  return p < (floor as number) ? floor : p
}
