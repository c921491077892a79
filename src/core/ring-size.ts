/**
 * The storage size of a ring that must hold `n` slots: the least power of two ≥ n (at least 1),
 * so that a slot is `t & (size − 1)` rather than `t % n`. A division costs several times a
 * mask, and the estimators' rings are indexed several times per block. O(log n).
 *
 * @example ringSize(11) // 16
 */
export function ringSize(n: number): number {
  let size = 1
  while (size < n) size *= 2
  return size
}
