import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SlidingWindow } from '../../src/core/sliding-window.js'
import { NUM_RUNS, toInput, u64Arb } from './arbitraries.js'

describe('SlidingWindow', () => {
  it('every rank equals that of the sorted newest-W values', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.oneof(u64Arb, fc.bigInt({ min: 0n, max: 5n })), { maxLength: 200 }), (w, values) => {
        const win = new SlidingWindow(w)
        values.forEach((v, seq) => {
          win.push(toInput(v), seq, v % 2n === 0n)
          const held = values.slice(Math.max(0, seq - w + 1), seq + 1)
          const sorted = [...held].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
          expect(win.length).toBe(held.length)
          expect(win.flaggedCount).toBe(held.filter((x) => x % 2n === 0n).length)
          for (let k = 0; k < sorted.length; k++) expect(BigInt(win.valueAt(k))).toBe(sorted[k])
        })
      }),
      { numRuns: NUM_RUNS },
    )
  })
})
