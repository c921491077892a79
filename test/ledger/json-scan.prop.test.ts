import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_DEPTH, skipValue, skipWs } from '../../src/ledger/json-scan.js'

const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 60)

/** Whether the validator takes the whole of `text` as one JSON value. */
function validates(text: string): boolean {
  const b = Buffer.from(text)
  const start = skipWs(b, 0)
  const end = skipValue(b, start)
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
