import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { JsonReader, MAX_DEPTH, skipWs } from '../../src/ledger/read/json-bytes.js'
import { fcRuns } from '../budget.js'

/** One reader for every text, as a scanner keeps one for its lines. */
const reader = new JsonReader()


const NUM_RUNS = fcRuns(0.6)

/**
 * `text` as a view at byte `offset` of a larger buffer whose other bytes are `fill`: the scanner
 * reads words, so it must neither depend on alignment nor read past the view.
 */
function placed(text: string | Buffer, offset: number, fill: number): Buffer {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text
  const whole = Buffer.alloc(offset + bytes.length + 8, fill)
  bytes.copy(whole, offset)
  return whole.subarray(offset, offset + bytes.length)
}

/** Whether the validator takes the whole of `text` as one JSON value. */
function validates(text: string, offset = 0, fill = 0x20): boolean {
  const b = placed(text, offset, fill)
  const start = skipWs(b, 0)
  const end = reader.at(b).skipValue(start)
  return end >= 0 && skipWs(b, end) === b.length
}

function parses(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** Pieces of JSON and of near-JSON, so that joined they are valid now and then. */
const piece = fc.constantFrom(
  ...['{', '}', '[', ']', ':', ',', '"a"', '"k":', '"\\u00e9"', '"\\uZZ"', '"\\x"', '"\\/"', '"', '\\', '0', '00', '-', '1', '12', '.', '.5', 'e', 'E+', '-0', 'true', 'tru', 'false', 'null', 'nul', ' ', '\t', '\r', '\n', '\u0001', 'é', '\uFEFF'],
)

describe('skipValue: the scanner’s JSON validator', () => {
  it('takes a text exactly when JSON.parse does (pieces of JSON joined at random)', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('')
        expect(validates(text)).toBe(parses(text))
      }),
      { numRuns: NUM_RUNS * 20 },
    )
  })

  it('takes every JSON value JSON.stringify writes, compact or indented', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 2), (value, indent) => {
        expect(validates(JSON.stringify(value, null, indent))).toBe(true)
      }),
      { numRuns: NUM_RUNS * 5 },
    )
  })

  it('answers alike wherever the bytes lie in their buffer and whatever surrounds them', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.nat(7), fc.constantFrom(0x00, 0x22, 0x5c, 0x41, 0x20), (pieces, offset, fill) => {
        const text = pieces.join('')
        expect(validates(text, offset, fill)).toBe(parses(text))
      }),
      { numRuns: NUM_RUNS * 10 },
    )
  })

  it('stringStop finds the first quote, backslash or control byte, or the end, at any offset', () => {
    const special = fc.constantFrom(0x22, 0x5c, 0x00, 0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xff, 0x30, 0x61)
    fc.assert(
      fc.property(fc.array(fc.oneof(special, fc.integer({ min: 0, max: 255 })), { maxLength: 40 }), fc.nat(7), fc.nat(40), fc.constantFrom(0x00, 0x22, 0x41), (bytes, offset, from, fill) => {
        const b = placed(Buffer.from(bytes), offset, fill)
        const p = Math.min(from, b.length)
        let expected = p
        while (expected < b.length && !(b[expected] === 0x22 || b[expected] === 0x5c || (b[expected] as number) < 0x20)) expected++
        expect(reader.at(b).stringStop(p)).toBe(expected)
      }),
      { numRuns: NUM_RUNS * 20 },
    )
  })

  it('knows JSON numbers, literals and escapes to the byte', () => {
    for (const text of ['-0', '0.5e-7', '1E+2', '+1', '01', '1.', '.1', '-', '1e', 'truee', '"\\u12"', '"\\u1234"', '"a\tb"', '[1,]', '{"a":1,}', '{"a" 1}', '[] ]', '{"a":{}}']) {
      expect(validates(text), text).toBe(parses(text))
    }
  })

  it('refuses nesting deeper than MAX_DEPTH instead of following it (the full parser then reads the line)', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}0${']'.repeat(depth)}`
    expect(validates(nested(MAX_DEPTH))).toBe(true)
    expect(validates(nested(MAX_DEPTH + 1))).toBe(false)
    expect(parses(nested(MAX_DEPTH + 1))).toBe(true)
  })
})
