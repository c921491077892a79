import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/api/plumbing/errors.js'
import { compileParamParser, PARAM } from '../../src/api/params.js'

const parser = (httpPart: 'params' | 'querystring', properties: Record<string, unknown>, required: string[] = []) =>
  compileParamParser({ schema: { type: 'object', properties, required }, method: 'GET', url: '/', httpPart }) as (data: unknown) => { value?: Record<string, unknown>; error?: ApiError }

describe('parameter parsing (as the node’s Rust parsers read them)', () => {
  it('reads u64 exactly, into the canonical number|bigint form', () => {
    const p = parser('params', { v: PARAM.u64 })
    expect(p({ v: '0' }).value).toEqual({ v: 0 })
    expect(p({ v: '9007199254740991' }).value).toEqual({ v: 9007199254740991 })
    expect(p({ v: '9007199254740993' }).value).toEqual({ v: 9007199254740993n })
    expect(p({ v: '18446744073709551615' }).value).toEqual({ v: 18446744073709551615n })
    for (const bad of ['', '-0', '+1', ' 1', '1 ', '1e3', '0x1', '1.0', '18446744073709551616']) expect(p({ v: bad }).error).toBeInstanceOf(ApiError)
  })

  it('reads u16 with Rust’s messages', () => {
    const p = parser('querystring', { limit: PARAM.u16 })
    expect(p({ limit: '65535' }).value).toEqual({ limit: 65535 })
    expect(p({ limit: '00025' }).value).toEqual({ limit: 25 })
    expect(p({ limit: '65536' }).error?.message).toBe('failed to parse parameter `limit`: failed to parse "integer(uint16)": number too large to fit in target type')
    expect(p({ limit: 'abc' }).error?.message).toBe('failed to parse parameter `limit`: failed to parse "integer(uint16)": invalid digit found in string')
    expect(p({ limit: '' }).error?.message).toBe('failed to parse parameter `limit`: failed to parse "integer(uint16)": cannot parse integer from empty string')
    expect(p({ limit: ['1', '2'] }).error?.code).toBe('invalid_parameter')
  })

  it('reads addresses into the canonical long form', () => {
    const p = parser('params', { a: PARAM.address })
    expect(p({ a: '0x1' }).value).toEqual({ a: `0x${'0'.repeat(63)}1` })
    expect(p({ a: 'AB'.repeat(32) }).value).toEqual({ a: `0x${'ab'.repeat(32)}` })
    expect(p({ a: 'xyz' }).error?.message).toBe('failed to parse path `a`: failed to parse "string(hex)": invalid account address "xyz"')
  })

  it('reads booleans as true|false only, and leaves undeclared or omitted optional values out', () => {
    const p = parser('querystring', { w: PARAM.boolean })
    expect(p({ w: 'true' }).value).toEqual({ w: true })
    expect(p({ w: 'false', other: 'x' }).value).toEqual({ w: false })
    expect(p({}).value).toEqual({})
    expect(p(null).value).toEqual({})
    expect(p({ w: '1' }).error?.code).toBe('invalid_parameter')
  })

  it('reports a missing required value', () => {
    expect(parser('querystring', { n: PARAM.u64 }, ['n'])({}).error?.message).toBe('failed to parse parameter `n`: value is required')
  })
})
