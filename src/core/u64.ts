/**
 * An unsigned 64-bit integer held exactly. Canonical form: a `number` when the value is at most
 * `Number.MAX_SAFE_INTEGER`, otherwise a `bigint`. Because the form is canonical, `===` is
 * equality, and `<`/`>` compare exactly across the two forms (JS compares number and bigint by
 * mathematical value). The safe-integer path keeps the hot loops on doubles.
 */
export type U64 = number | bigint

/** 2^64 - 1, the largest u64. */
export const U64_MAX = 18446744073709551615n

const MAX_SAFE = Number.MAX_SAFE_INTEGER
const DECIMAL = /^[0-9]+$/

/** Brings a bigint in range to canonical form. */
function fromBigInt(value: bigint): U64 {
  return value <= 9007199254740991n ? Number(value) : value
}

/**
 * Reads a u64 from a decimal string (digits only, as the node writes u64 values), a safe
 * non-negative integer `number`, or a `bigint`. Returns `undefined` for anything else
 * (negative, fractional, exponent, above 2^64-1, empty, signs, whitespace).
 *
 * @example parseU64('18446744073709551615') // 18446744073709551615n
 */
export function parseU64(value: unknown): U64 | undefined {
  if (typeof value === 'string') {
    const n = value.length
    if (n === 0 || n > 20) return undefined
    if (n < 16) {
      // Up to 15 digits: below 10^15 < 2^53, so the sum is exact. A loop, not a RegExp and
      // `Number`: this runs for every u64 field of every block loaded.
      let v = 0
      for (let i = 0; i < n; i++) {
        const d = value.charCodeAt(i) - 48
        if (!(d >= 0 && d <= 9)) return undefined
        v = v * 10 + d
      }
      return v
    }
    if (!DECIMAL.test(value)) return undefined
    const big = BigInt(value)
    return big > U64_MAX ? undefined : fromBigInt(big)
  }
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 0 && value <= MAX_SAFE ? value : undefined
  }
  if (typeof value === 'bigint') {
    return value >= 0n && value <= U64_MAX ? fromBigInt(value) : undefined
  }
  return undefined
}

/** Brings a u64-valued number or bigint to canonical form; throws RangeError outside u64. */
export function toU64(value: number | bigint): U64 {
  const v = parseU64(value)
  if (v === undefined) throw new RangeError(`not a u64: ${String(value)}`)
  return v
}

/** The exact bigint of a u64. */
export function u64ToBigInt(value: U64): bigint {
  return typeof value === 'bigint' ? value : BigInt(value)
}

/**
 * The double of a u64 (exact up to 2^53, the nearest double above): `Number(value)`, but a
 * number is returned as it is. Where `value` may be a bigint, the compiler turns `Number()` into
 * a call to a generic conversion even when it holds a number, which costs more than the test.
 *
 * @example u64ToNumber(150) // 150
 */
export function u64ToNumber(value: U64): number {
  return typeof value === 'number' ? value : Number(value)
}

/** Sum of two u64 in canonical form, or `undefined` on overflow past 2^64-1. */
export function addU64(a: U64, b: U64): U64 | undefined {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b
    if (s <= MAX_SAFE) return s
  }
  const s = u64ToBigInt(a) + u64ToBigInt(b)
  return s > U64_MAX ? undefined : fromBigInt(s)
}

/** The larger of two u64. */
export function maxU64(a: U64, b: U64): U64 {
  return a < b ? b : a
}

/**
 * `to − from` as a number: exact while the difference is a safe integer (always so for two
 * `number` u64), otherwise the nearest double. Lets the stores turn a version, height or
 * sequence number into an array offset in O(1), and the scorer measure an overpayment. Takes
 * `number | bigint` so that 2^64 (an unreachable requirement) may be one side.
 *
 * @example u64Distance(10, 13) // 3
 */
export function u64Distance(from: number | bigint, to: number | bigint): number {
  if (typeof from === 'number' && typeof to === 'number') return to - from
  return Number(BigInt(to) - BigInt(from))
}
