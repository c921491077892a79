import type { U64 } from './u64.js'

/**
 * Aptos mempool broadcast buckets (`DEFAULT_BUCKETS`, config/global-constants/src/lib.rs).
 */
export const DEFAULT_BUCKETS: readonly U64[] = Object.freeze([
  0, 150, 300, 500, 1000, 3000, 5000, 10000, 100000, 1000000,
])

/**
 * The first bucket strictly greater than `price`, or `price` itself when no bucket is greater
 * (at or above the top bucket), as Aptos' `next_bucket`. `buckets` must be strictly ascending.
 * O(log B) by binary search.
 *
 * @example nextBucket(100, DEFAULT_BUCKETS) // 150
 */
export function nextBucket(price: U64, buckets: readonly U64[]): U64 {
  let lo = 0
  let hi = buckets.length
  // invariant: every bucket before lo is <= price; every bucket at or after hi is > price
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((buckets[mid] as U64) > price) hi = mid
    else lo = mid + 1
  }
  return lo < buckets.length ? (buckets[lo] as U64) : price
}
