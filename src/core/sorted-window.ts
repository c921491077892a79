import type { U64 } from './u64.js'
import type { OrderStatisticWindow } from './window.js'

/**
 * Order-statistic window over a sorted typed array. Keys are held as doubles (exact for safe
 * integers; `Number()` of a bigint is monotonic, so doubles that differ decide the order) with
 * the exact bigint kept beside only once one has been pushed. A push replaces the evicted entry
 * by shifting the entries between its rank and the new value's rank by one: O(log W + d) for a
 * rank distance d <= W, a single memmove per array.
 *
 * Invariant: entries [0, length) are sorted by (value, seq) and are exactly the values with
 * sequence numbers in (newestSeq - length, newestSeq].
 */
export class SortedWindow implements OrderStatisticWindow {
  readonly capacity: number
  private readonly num: Float64Array
  private readonly seq: Float64Array
  private readonly flags: Uint8Array
  private big: (bigint | undefined)[] | null = null
  /** Per ring slot (seq % capacity): the value pushed there, to find it again on eviction. */
  private readonly slotNum: Float64Array
  private readonly slotBig: (bigint | undefined)[]
  private count = 0
  private last = -1
  private flagged = 0

  constructor(capacity: number) {
    this.capacity = capacity
    this.num = new Float64Array(capacity)
    this.seq = new Float64Array(capacity)
    this.flags = new Uint8Array(capacity)
    this.slotNum = new Float64Array(capacity)
    this.slotBig = new Array<bigint | undefined>(capacity).fill(undefined)
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
    const isBig = typeof value === 'bigint'
    const n = isBig ? Number(value) : value
    if (isBig && this.big === null) this.big = new Array<bigint | undefined>(this.capacity).fill(undefined)
    const slot = seq % this.capacity
    let hole: number
    const full = this.count === this.capacity
    if (full) {
      hole = this.rank(this.slotNum[slot] as number, this.slotBig[slot], seq - this.capacity)
      this.flagged -= this.flags[hole] as number
    } else {
      hole = this.count // the free entry past the end; ranks below see only the held entries
    }
    this.slotNum[slot] = n
    this.slotBig[slot] = isBig ? value : undefined
    // Move the hole to the new value's rank: shift the entries in between by one.
    let at = this.rank(n, isBig ? value : undefined, seq)
    if (at > hole) {
      at-- // entries after the hole move down one
      this.shift(hole, hole + 1, at + 1)
    } else if (at < hole) {
      this.shift(at + 1, at, hole)
    }
    this.num[at] = n
    this.seq[at] = seq
    this.flags[at] = flag ? 1 : 0
    if (this.big !== null) this.big[at] = isBig ? value : undefined
    if (!full) this.count++
    this.flagged += flag ? 1 : 0
    this.last = seq
  }

  /** Moves entries [from, to) to start at `target` (one memmove per array; short runs by hand, as a builtin call costs more than a few element moves). */
  private shift(target: number, from: number, to: number): void {
    const { num, seq, flags, big } = this
    if (to - from <= 16 && big === null) {
      if (target < from) {
        for (let i = from; i < to; i++) {
          num[i - 1] = num[i] as number
          seq[i - 1] = seq[i] as number
          flags[i - 1] = flags[i] as number
        }
      } else {
        for (let i = to - 1; i >= from; i--) {
          num[i + 1] = num[i] as number
          seq[i + 1] = seq[i] as number
          flags[i + 1] = flags[i] as number
        }
      }
      return
    }
    num.copyWithin(target, from, to)
    seq.copyWithin(target, from, to)
    flags.copyWithin(target, from, to)
    big?.copyWithin(target, from, to)
  }

  valueAt(k: number): U64 {
    return this.big?.[k] ?? (this.num[k] as number)
  }

  seqAt(k: number): number {
    return this.seq[k] as number
  }

  /**
   * Number of held entries ordered before (n, b, s): the insertion rank of a new entry, or the
   * index of an existing one. Binary search, O(log W).
   */
  private rank(n: number, b: bigint | undefined, s: number): number {
    let lo = 0
    let hi = this.count
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.before(mid, n, b, s)) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Whether entry `i` orders strictly before (n, b, s). */
  private before(i: number, n: number, b: bigint | undefined, s: number): boolean {
    const ni = this.num[i] as number
    if (ni !== n) return ni < n
    const bi = this.big === null ? undefined : this.big[i]
    if (bi !== undefined || b !== undefined) {
      const ei: U64 = bi ?? ni
      const e: U64 = b ?? n
      if (ei !== e) return ei < e
    }
    return (this.seq[i] as number) < s
  }
}
