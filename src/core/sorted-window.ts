import { compare } from './key.js'
import type { U64 } from './u64.js'
import type { OrderStatisticWindow } from './window.js'

/**
 * Order-statistic window over a sorted typed array of values (a multiset; ties in any order).
 * Keys are held as doubles, exact for safe integers; `Number()` of a bigint is monotonic, so
 * doubles that differ decide the order, and the exact bigint is kept beside them only once one
 * has been pushed. A push into a full window replaces one copy of the evicted value by the new
 * value, moving only the entries whose values lie strictly between the two: O(log W + d), where
 * d is small because block prices cluster on a few bucket values (d = 0 when they are equal).
 *
 * Invariant: `num[0, length)` is sorted and is the multiset of the values pushed with sequence
 * numbers in (newestSeq - length, newestSeq], which also sit by slot `seq % capacity` in `slotNum`.
 */
export class SortedWindow implements OrderStatisticWindow {
  readonly capacity: number
  private readonly num: Float64Array
  private big: (bigint | undefined)[] | null = null
  /** Per ring slot (seq % capacity): the value and flag pushed there, read back on eviction. */
  private readonly slotNum: Float64Array
  private readonly slotBig: (bigint | undefined)[]
  private readonly slotFlag: Uint8Array
  private count = 0
  private last = -1
  private flagged = 0

  constructor(capacity: number) {
    this.capacity = capacity
    this.num = new Float64Array(capacity)
    this.slotNum = new Float64Array(capacity)
    this.slotBig = new Array<bigint | undefined>(capacity).fill(undefined)
    this.slotFlag = new Uint8Array(capacity)
  }

  get length(): number {
    return this.count
  }

  get flaggedCount(): number {
    return this.flagged
  }

  get newestSeq(): number {
    return this.count === 0 ? -1 : this.last
  }

  clear(): void {
    this.count = 0
    this.flagged = 0
    this.last = -1
    this.big = null
  }

  push(value: U64, seq: number, flag: boolean): void {
    const b = typeof value === 'bigint' ? value : undefined
    const n = b === undefined ? (value as number) : Number(b)
    if (b !== undefined && this.big === null) this.big = new Array<bigint | undefined>(this.capacity).fill(undefined)
    const slot = seq % this.capacity
    if (this.count === this.capacity) {
      const on = this.slotNum[slot] as number
      const ob = this.slotBig[slot]
      this.flagged -= this.slotFlag[slot] as number
      const c = compare(on, ob, n, b)
      if (c < 0) {
        // Old < new: drop the last copy of old, shift (old, new) down one, new goes before the first entry >= new.
        const hole = this.upper(on, ob) - 1
        const at = this.lower(n, b) - 1
        this.shift(hole, hole + 1, at + 1)
        this.set(at, n, b)
      } else if (c > 0) {
        // Old > new: drop the first copy of old, shift (new, old) up one, new goes after the last entry <= new.
        const hole = this.lower(on, ob)
        const at = this.upper(n, b)
        this.shift(at + 1, at, hole)
        this.set(at, n, b)
      }
    } else {
      const at = this.upper(n, b)
      this.shift(at + 1, at, this.count)
      this.set(at, n, b)
      this.count++
    }
    this.slotNum[slot] = n
    this.slotBig[slot] = b
    this.slotFlag[slot] = flag ? 1 : 0
    this.flagged += flag ? 1 : 0
    this.last = seq
  }

  valueAt(k: number): U64 {
    return this.big?.[k] ?? (this.num[k] as number)
  }

  /** The oldest held sequence number whose value equals `valueAt(k)`. O(W): for explanations, not the hot path. */
  seqAt(k: number): number {
    const n = this.num[k] as number
    const b = this.big?.[k]
    for (let s = this.last - this.count + 1; s <= this.last; s++) {
      const slot = s % this.capacity
      if (this.slotNum[slot] === n && this.slotBig[slot] === b) return s
    }
    throw new Error('SortedWindow invariant broken: rank value not held')
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
