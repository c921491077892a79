import { u64ToBigInt, type U64 } from '../core/u64.js'

/**
 * `to − from` as a number: exact while the difference is a safe integer (always so for two
 * `number` u64), otherwise the nearest double, which is still far outside any array index. Lets
 * the stores turn a version, height or sequence number into an array offset in O(1).
 *
 * @example u64Distance(10, 13) // 3
 */
export function u64Distance(from: U64, to: U64): number {
  if (typeof from === 'number' && typeof to === 'number') return to - from
  return Number(u64ToBigInt(to) - u64ToBigInt(from))
}
