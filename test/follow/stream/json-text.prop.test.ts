import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonText } from '../../../src/follow/stream/convert/json-text.js'
import { jsonValue } from '../../../src/follow/stream/convert/payload.js'
import { fcRuns } from '../../budget.js'

const NUM_RUNS = fcRuns(0.6)

/** What the node writes for a value the stream sends as JSON text: the slow, obviously right way. */
const reference = (text: string) => JSON.stringify(jsonValue(text))

/** JSON texts near the canonical form: compact serializations, then small edits that may or may not keep them canonical. */
const nearJson = fc
  .tuple(
    fc.jsonValue({ maxDepth: 3 }),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom(' ', '0', '-', '.5', 'e1', '"', '\\', '\\u0001', '\\u001F', '\\/', '\\ud83d', '\ud83d', ',', '{"1":0}', '{"a":1,"a":2}', '00', '1234567890123456', '[]', '}')), { maxLength: 3 }),
  )
  .map(([value, edits]) => {
    let text = JSON.stringify(value) ?? 'null'
    for (const [at, piece] of edits) {
      const i = at % (text.length + 1)
      text = text.slice(0, i) + piece + text.slice(i)
    }
    return text
  })

describe('jsonText', () => {
  it('is JSON.stringify(jsonValue(text)) for JSON texts and their near misses', () => {
    fc.assert(fc.property(nearJson, (text) => {
      expect(jsonText(text)).toBe(reference(text))
    }), { numRuns: NUM_RUNS })
  })

  it('is JSON.stringify(jsonValue(text)) for any string', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.json()), (text) => {
      expect(jsonText(text)).toBe(reference(text))
    }), { numRuns: NUM_RUNS })
  })

  it('keeps canonical text as it is and re-serializes what V8 would write otherwise', () => {
    const kept = ['{"coin":{"value":"100"},"frozen":false}', '[1,-2,0,null,true,"a\\"b\\\\c\\n\\u001f"]', '"\ud83d\ude00 é"', '123456789012345']
    for (const t of kept) expect(jsonText(t)).toBe(t)
    const changed: [string, string][] = [
      ['{"b":1,"2":0}', '{"2":0,"b":1}'],
      ['{"a":1,"a":2}', '{"a":2}'],
      ['{ "a": 1 }', '{"a":1}'],
      ['1.0', '1'],
      ['-0', '0'],
      ['"\\/"', '"/"'],
      ['"\\u00e9"', '"é"'],
      ['not json', '"not json"'],
      ['', '""'],
    ]
    for (const [t, want] of changed) expect(jsonText(t)).toBe(want)
  })
})
