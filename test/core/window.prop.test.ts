import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SlidingWindow } from '../../src/core/window.js'
import { SortedWindow } from '../../src/core/sorted-window.js'
import { TreapWindow } from '../../src/core/treap-window.js'
import { NUM_RUNS, toInput, u64Arb } from './arbitraries.js'

describe.each([
  ['SortedWindow', (w: number) => new SortedWindow(w)],
  ['TreapWindow', (w: number) => new TreapWindow(w)],
  ['SlidingWindow', (w: number) => new SlidingWindow(w)],
] as const)('%s', (_name, make) => {
  it('every rank equals that of the sorted newest-W values', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.oneof(u64Arb, fc.bigInt({ min: 0n, max: 5n })), { maxLength: 120, size: 'max' }), (w, values) => {
        const win = make(w)
        values.forEach((v, seq) => {
          win.push(toInput(v), seq, v % 2n === 0n)
          const held = values.slice(Math.max(0, seq - w + 1), seq + 1)
          const sorted = [...held].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
          expect(win.length).toBe(held.length)
          expect(win.flaggedCount).toBe(held.filter((x) => x % 2n === 0n).length)
          for (let k = 0; k < sorted.length; k++) {
            expect(BigInt(win.valueAt(k))).toBe(sorted[k])
            const oldest = seq - held.length + 1 + held.indexOf(sorted[k] as bigint)
            expect(win.seqAt(k)).toBe(oldest)
          }
          expect(win.newestSeq).toBe(seq)
        })
      }),
      { numRuns: Math.ceil(NUM_RUNS / 3) },
    )
  })
  it('pushRepeat(v, seq, n) leaves the window n pushes of v leave, however long the run (a refill once it turns over)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.tuple(fc.oneof(u64Arb, fc.bigInt({ min: 0n, max: 5n })), fc.integer({ min: 0, max: 100 }), fc.boolean()), { maxLength: 12 }),
        (w, runs) => {
          const fast = make(w)
          const slow = make(w)
          let seq = 0
          for (const [v, n, flag] of runs) {
            fast.pushRepeat(toInput(v), seq, n, flag)
            for (let s = 0; s < n; s++) slow.push(toInput(v), seq + s, flag)
            seq += n
            expect([fast.length, fast.flaggedCount, fast.newestSeq]).toEqual([slow.length, slow.flaggedCount, slow.newestSeq])
            for (let k = 0; k < slow.length; k++) {
              expect(fast.valueAt(k)).toBe(slow.valueAt(k))
              expect(fast.seqAt(k)).toBe(slow.seqAt(k))
            }
          }
          // and single pushes after a refill evict exactly what they would have
          for (let s = 0; s < w; s++) {
            fast.push(s, seq + s, false)
            slow.push(s, seq + s, false)
          }
          for (let k = 0; k < slow.length; k++) expect(fast.valueAt(k)).toBe(slow.valueAt(k))
        },
      ),
      { numRuns: Math.ceil(NUM_RUNS / 3) },
    )
  })
  it('storage grown while it fills (from any first sequence number, and again after clear) holds the sorted newest-W values and their flags', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        // few distinct values, flags drawn apart from them: a value often evicts an equal one with another flag
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean()), { maxLength: 700 }),
        fc.nat(),
        (w, start, pushes, cut) => {
          const win = make(w)
          // a clear part-way (maybe before any push), then a new sequence from another start
          const at = pushes.length === 0 ? 0 : cut % pushes.length
          const check = (held: [number, boolean][], seq: number) => {
            const newest = held.slice(-w)
            const sorted = newest.map(([v]) => v).sort((a, b) => a - b)
            expect([win.length, win.newestSeq, win.flaggedCount]).toEqual([sorted.length, sorted.length === 0 ? -1 : seq, newest.filter(([, f]) => f).length])
            for (let k = 0; k < sorted.length; k++) expect(win.valueAt(k)).toBe(sorted[k])
            const top = sorted.length - 1
            if (top >= 0) expect(win.seqAt(top)).toBe(seq - (newest.length - 1) + newest.findIndex(([v]) => v === sorted[top]))
          }
          pushes.slice(0, at).forEach(([v, f], i) => win.push(v, start + i, f))
          check(pushes.slice(0, at), start + at - 1)
          win.clear()
          const rest = pushes.slice(at)
          rest.forEach(([v, f], i) => win.push(v, 7 + i, f))
          check(rest, 7 + rest.length - 1)
        },
      ),
      { numRuns: Math.ceil(NUM_RUNS / 3) },
    )
  })
  it('clear empties it and it refills with a new sequence', () => {
    const win = make(3)
    ;[5, 1, 9, 7].forEach((v, i) => win.push(v, i, true))
    win.clear()
    expect([win.length, win.flaggedCount, win.newestSeq]).toEqual([0, 0, -1])
    ;[4, 18446744073709551615n, 2].forEach((v, i) => win.push(v, 100 + i, false))
    expect([win.valueAt(0), win.valueAt(1), win.valueAt(2), win.seqAt(2)]).toEqual([2, 4, 18446744073709551615n, 101])
  })
})
