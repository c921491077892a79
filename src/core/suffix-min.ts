import { ringSize } from './ring-size.js'

/**
 * Minima over the newest `d` values of a stream, for any `d` up to a fixed `capacity`: a
 * monotone deque (values strictly increasing from oldest to newest, each entry the minimum of
 * the suffix that starts right after its predecessor). Push is O(1) amortised, `min(d)` is
 * O(log capacity) by binary search; memory is fixed at construction (`ringSize(capacity)` slots,
 * so a slot is a mask).
 *
 * Invariant: the entries are the positions `i` in the newest `capacity` values such that every
 * later value is greater than value `i`; the minimum of the newest `d` values is the first entry
 * whose position is inside them.
 */
export class SuffixMin<T extends number | bigint> {
  readonly capacity: number
  private readonly value: T[]
  private readonly pos: Float64Array
  /** Storage size − 1 (a power of two minus one; storage ≥ capacity, and at most `capacity` entries are ever live). */
  private readonly mask: number
  /** Entries live at ring slots head, head+1, …, head+size-1 (mod storage size). */
  private head = 0
  private size = 0
  private pushed = 0

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`)
    this.capacity = capacity
    const size = ringSize(capacity)
    this.mask = size - 1
    this.value = new Array<T>(size)
    this.pos = new Float64Array(size)
  }

  /** Values pushed so far. */
  get length(): number {
    return this.pushed
  }

  /** Appends the next value. */
  push(v: T): void {
    const mask = this.mask
    // drop newer-or-equal entries from the back: they can no longer be a suffix minimum
    while (this.size > 0 && (this.value[(this.head + this.size - 1) & mask] as T) >= v) this.size--
    // drop the front when it leaves the newest `capacity` values
    if (this.size > 0 && (this.pos[this.head] as number) <= this.pushed - this.capacity) {
      this.head = (this.head + 1) & mask
      this.size--
    }
    const slot = (this.head + this.size) & mask
    this.value[slot] = v
    this.pos[slot] = this.pushed
    this.size++
    this.pushed++
  }

  /** Forgets every value. */
  clear(): void {
    this.head = 0
    this.size = 0
    this.pushed = 0
  }

  /** Minimum of the newest `d` values; requires 1 <= d <= min(capacity, length). */
  min(d: number): T {
    const mask = this.mask
    const first = this.pushed - d
    let lo = 0
    let hi = this.size - 1
    // invariant: the answer's entry index is in [lo, hi]; the newest entry always qualifies
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.pos[(this.head + mid) & mask] as number) >= first) hi = mid
      else lo = mid + 1
    }
    return this.value[(this.head + lo) & mask] as T
  }
}
