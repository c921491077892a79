import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { responseBytes } from '../../../src/follow/stream/stream-server.js'
import { fcRuns } from '../../budget.js'
import { decoderOutcome, mainnetFixtures, mergedShapes, oddShapes, wireOutcome } from './helpers/wire-shapes.js'

const NUM_RUNS = fcRuns(1)

/** Every shape the wire path knows or refuses: the mainnet fixtures, the odd shapes, the merged ones. */
const POOL = [...mainnetFixtures().map((f) => f.bytes), ...oddShapes(), ...mergedShapes()]

/** An edit of a response's bytes: a byte set, inserted or removed at a position (taken modulo the length). */
const edit = fc.tuple(fc.constantFrom('set', 'insert', 'remove'), fc.nat(), fc.integer({ min: 0, max: 255 }))

function applied(bytes: Uint8Array, edits: readonly [string, number, number][]): Uint8Array {
  let out = Buffer.from(bytes)
  for (const [kind, at, byte] of edits) {
    const i = at % (out.length + 1)
    if (kind === 'set' && i < out.length) out[i] = byte
    else if (kind === 'insert') out = Buffer.concat([out.subarray(0, i), Buffer.from([byte]), out.subarray(i)])
    else out = Buffer.concat([out.subarray(0, i), out.subarray(i + 1)])
  }
  return out
}

describe('decodeTextResponse on damaged bytes', () => {
  it('writes what the decoder and transactionText write, or refuses with their error, for responses of known shapes with bytes set, inserted or removed', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(POOL.length - 1), { minLength: 1, maxLength: 3 }), fc.array(edit, { minLength: 1, maxLength: 3 }), (picks, edits) => {
        const bytes = applied(responseBytes(picks.map((i) => POOL[i] as Uint8Array), 4), edits)
        expect(wireOutcome(bytes)).toEqual(decoderOutcome(bytes))
      }),
      // A case found by this property: a table item's key hash tag turned into a second `key`
      // whose bytes are not UTF-8; the decoder refuses it even though the later `key` wins.
      { numRuns: NUM_RUNS, examples: [[[18, 12], [['set', 1007202735, 26]]]] },
    )
  })

  it('writes what the decoder writes when one byte of a string, hash or number changes but the message stays well-formed', () => {
    // Bytes of value 0x20–0x7e swapped for others of that range keep lengths and tags mostly intact, so the wire path (not only its refusals) meets the changed bytes.
    fc.assert(
      fc.property(fc.nat(POOL.length - 1), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0x20, max: 0x7e })), { minLength: 1, maxLength: 4 }), (pick, swaps) => {
        const bytes = Buffer.from(responseBytes([POOL[pick] as Uint8Array], 4))
        for (const [at, byte] of swaps) {
          const i = at % bytes.length
          if ((bytes[i] as number) >= 0x20 && (bytes[i] as number) <= 0x7e) bytes[i] = byte
        }
        expect(wireOutcome(bytes)).toEqual(decoderOutcome(bytes))
      }),
      { numRuns: NUM_RUNS },
    )
  })
})
