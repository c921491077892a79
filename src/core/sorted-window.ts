import { MultisetWindow, compare } from './multiset-window.js'
import type { U64 } from './u64.js'

/** The values of every sorted window not yet pushed to: no length, never written (a push grows first). */
const NO_VALUES = new Float64Array(0)

/**
 * Order-statistic window over a sorted typed array of values (a multiset; ties in any order).
 * Keys are held as doubles, exact for safe integers; `Number()` of a bigint is monotonic, so
 * doubles that differ decide the order, and the exact bigint is kept beside them only once one
 * has been pushed. A push into a full window replaces one copy of the evicted value by the new
 * value, moving only the entries whose values lie strictly between the two: O(log W + d), where
 * d is small because block prices cluster on a few bucket values (d = 0 when they are equal).
 *
 * Invariant: `num[0, length)` is sorted and is the multiset of the values pushed with sequence
 * numbers in (newestSeq - length, newestSeq].
 */
export class SortedWindow extends MultisetWindow {
  /** The sorted values, grown with the window (see `MultisetWindow.grow`); shared empty until the first push. */
  private num: Float64Array = NO_VALUES
  private big: (bigint | undefined)[] | null = null

  protected growValues(size: number): void {
    const num = new Float64Array(size)
    num.set(this.num.subarray(0, this.count))
    this.num = num
  }

  valueAt(k: number): U64 {
    return this.big?.[k] ?? (this.num[k] as number)
  }

  protected add(n: number, b: bigint | undefined): void {
    this.needBig(b)
    // a value at or above the largest held goes last (a window filling with a steady or rising series): no search
    const last = this.count - 1
    const at = last < 0 || this.cmpAt(last, n, b) <= 0 ? this.count : this.upper(n, b)
    this.shift(at + 1, at, this.count)
    this.set(at, n, b)
  }

  protected replace(on: number, ob: bigint | undefined, n: number, b: bigint | undefined): void {
    this.needBig(b)
    if (compare(on, ob, n, b) < 0) {
      // Old < new: drop the last copy of old, shift (old, new) down one, new goes before the first entry >= new.
      const hole = this.upper(on, ob) - 1
      const at = this.lower(n, b) - 1
      this.shift(hole, hole + 1, at + 1)
      this.set(at, n, b)
    } else {
      // Old > new: drop the first copy of old, shift (new, old) up one, new goes after the last entry <= new.
      const hole = this.lower(on, ob)
      const at = this.upper(n, b)
      this.shift(at + 1, at, hole)
      this.set(at, n, b)
    }
  }

  protected clearValues(): void {
    this.big = null
  }

  protected override fillValues(n: number, b: bigint | undefined): boolean {
    this.needBig(b)
    this.num.fill(n)
    this.big?.fill(b)
    return true
  }

  private needBig(b: bigint | undefined): void {
    if (b !== undefined && this.big === null) this.big = new Array<bigint | undefined>(this.capacity).fill(undefined)
  }

  private set(i: number, n: number, b: bigint | undefined): void {
    this.num[i] = n
    if (this.big !== null) this.big[i] = b
  }

  /** Moves entries [from, to) by one place to `target` (= from ± 1); short runs by hand, as a builtin call costs more than a few moves. */
  private shift(target: number, from: number, to: number): void {
    if (to <= from) return
    const { num, big } = this
    if (to - from > 16 || big !== null) {
      num.copyWithin(target, from, to)
      big?.copyWithin(target, from, to)
    } else if (target < from) {
      for (let i = from; i < to; i++) num[i - 1] = num[i] as number
    } else {
      for (let i = to - 1; i >= from; i--) num[i + 1] = num[i] as number
    }
  }

  /** First index whose value is >= (n, b). O(log W). */
  private lower(n: number, b: bigint | undefined): number {
    let lo = 0
    let hi = this.count
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.cmpAt(mid, n, b) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** First index whose value is > (n, b). O(log W). */
  private upper(n: number, b: bigint | undefined): number {
    let lo = 0
    let hi = this.count
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.cmpAt(mid, n, b) <= 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  private cmpAt(i: number, n: number, b: bigint | undefined): number {
    const ni = this.num[i] as number
    if (ni !== n) return ni < n ? -1 : 1
    return compare(ni, this.big === null ? undefined : this.big[i], n, b)
  }
}
