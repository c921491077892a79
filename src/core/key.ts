import type { U64 } from './u64.js'

/**
 * Exact order of two u64 held as a window key: the double (exact for safe integers, monotonic
 * for bigints) and, for values above 2^53, the exact bigint. Doubles that differ decide; only
 * equal doubles consult the bigints.
 */
export function compare(an: number, ab: bigint | undefined, bn: number, bb: bigint | undefined): number {
  if (an !== bn) return an < bn ? -1 : 1
  if (ab === undefined && bb === undefined) return 0
  const a: U64 = ab ?? an
  const b: U64 = bb ?? bn
  return a < b ? -1 : a > b ? 1 : 0
}
