import { describe, expect, it } from 'vitest'
import { U64_MAX, addU64, parseU64, u64ToNumber } from '../../src/core/u64.js'
import { gasEstimateToJson, stringifyExact } from '../../src/core/wire.js'

describe('parseU64', () => {
  it.each([
    ['0', 0], ['007', 7], ['9007199254740991', 9007199254740991], ['9007199254740992', 9007199254740992n],
    ['18446744073709551615', U64_MAX], [12, 12], [U64_MAX, U64_MAX], [5n, 5],
  ] as const)('reads %s', (input, expected) => {
    expect(parseU64(input)).toBe(expected)
  })
  it.each(['', '-1', '+1', '1.5', '1e3', ' 1', '0x10', '18446744073709551616', '99999999999999999999', 'abc', '١'])('rejects string %j', (s) => {
    expect(parseU64(s)).toBeUndefined()
  })
  it.each([-1, 1.5, NaN, Infinity, 2 ** 53, -1n, U64_MAX + 1n, null, undefined, {}])('rejects %s', (v) => {
    expect(parseU64(v)).toBeUndefined()
  })
  it('keeps one canonical form so === is equality and < is exact across forms', () => {
    expect(parseU64(9007199254740991n)).toBe(9007199254740991)
    expect((parseU64('9007199254740993') as bigint) > (parseU64('9007199254740992') as bigint)).toBe(true)
    expect(addU64(9007199254740991, 2)).toBe(9007199254740993n)
    expect(addU64(U64_MAX, 1)).toBeUndefined()
  })
})

describe('wire', () => {
  it('serializes estimates as exact JSON integers for every u64', () => {
    const json = gasEstimateToJson({ deprioritized_gas_estimate: 0, gas_estimate: 9007199254740993n, prioritized_gas_estimate: U64_MAX })
    expect(json).toBe('{"deprioritized_gas_estimate":0,"gas_estimate":9007199254740993,"prioritized_gas_estimate":18446744073709551615}')
    expect(JSON.parse(json.replace(/(\d{16,})/g, '"$1"')).prioritized_gas_estimate).toBe('18446744073709551615')
  })
  it('stringifyExact matches JSON.stringify on plain values and writes bigints exactly', () => {
    const v = { a: [1, 'x', null, true], b: { c: 2.5 }, d: undefined }
    expect(stringifyExact(v)).toBe(JSON.stringify(v))
    expect(stringifyExact({ n: U64_MAX })).toBe('{"n":18446744073709551615}')
  })
})

describe('u64ToNumber', () => {
  it('is Number() of every u64: a number as it is, a bigint to its nearest double (2^64 − 1 to 2^64)', () => {
    for (const v of [0, 100, 2 ** 53 - 1, 2n ** 53n + 1n, U64_MAX]) expect(u64ToNumber(v)).toBe(Number(v))
    expect(u64ToNumber(U64_MAX)).toBe(2 ** 64)
  })
})
