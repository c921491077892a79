import type { U64 } from './u64.js'
import type { OrderStatisticWindow } from './window.js'

/**
 * Exact order of two u64 held as a window key: the double (exact for safe integers, monotonic
 * for bigints) and, for values above 2^53, the exact bigint. Doubles that differ decide; only
 * equal doubles consult the bigints.
 */
export function compare(an: number, ab: bigint | undefined, bn: number, bb: bigint | undefined): number {
  if (an !== bn) return an < bn ? -1 : 1
  if (ab === undefined && bb === undefined) return 0
  const a: U64 = ab ?? an
  const b: U64 = bb ?? bn
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * What the window kinds share: the ring of the newest `capacity` values by slot `seq % capacity`
 * (read back to evict, and to answer `seqAt`), the count of flagged values, and the push
 * protocol. A subclass keeps the values as an ordered multiset: `add` one value (window not full)
 * or `replace` the evicted value by the new one (they differ; equal values need no work).
 * Keys are doubles (exact for safe integers, monotonic for bigints) with the exact bigint beside
 * them where a value is above 2^53.
 */
export abstract class MultisetWindow implements OrderStatisticWindow {
  readonly capacity: number
  /** Empty until the first push (see `allocate`), then `capacity` long. */
  private slotNum: Float64Array
  /** Exact bigints of the values above 2^53 by slot; allocated when the first one is pushed. */
  private slotBig: (bigint | undefined)[] | null = null
  private slotFlag: Uint8Array
  /** Values held; `add` runs before it is incremented. */
  protected count = 0
  private last = -1
  private flagged = 0

  constructor(capacity: number) {
    this.capacity = capacity
    this.slotNum = new Float64Array(0)
    this.slotFlag = new Uint8Array(0)
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
    this.clearValues()
  }

  push(value: U64, seq: number, flag: boolean): void {
    const b = typeof value === 'bigint' ? value : undefined
    const n = b === undefined ? (value as number) : Number(b)
    const slot = seq % this.capacity
    if (this.slotNum.length === 0) this.allocate()
    if (b !== undefined && this.slotBig === null) this.slotBig = new Array<bigint | undefined>(this.capacity).fill(undefined)
    if (this.count === this.capacity) {
      const on = this.slotNum[slot] as number
      const ob = this.slotBig === null ? undefined : this.slotBig[slot]
      this.flagged -= this.slotFlag[slot] as number
      if (compare(on, ob, n, b) !== 0) this.replace(on, ob, n, b)
    } else {
      this.add(n, b)
      this.count++
    }
    this.slotNum[slot] = n
    if (this.slotBig !== null) this.slotBig[slot] = b
    this.slotFlag[slot] = flag ? 1 : 0
    this.flagged += flag ? 1 : 0
    this.last = seq
  }

  /**
   * Pushes `value` `n` times, with sequence numbers `firstSeq` … `firstSeq + n − 1`: the same
   * window as n calls of `push`. Once the window is full only the last `capacity` pushes can
   * remain, so the others are skipped (every slot then holds a member of the multiset, whichever
   * seq it came from), and a run of at least `capacity` refills the window at once where the
   * subclass can (`fillValues`). O(min(n, W) · push), or O(W) for a refill.
   */
  pushRepeat(value: U64, firstSeq: number, n: number, flag: boolean): void {
    let s = 0
    for (; s < n && this.count < this.capacity; s++) this.push(value, firstSeq + s, flag)
    if (n - s >= this.capacity) {
      const b = typeof value === 'bigint' ? value : undefined
      const num = b === undefined ? (value as number) : Number(b)
      if (this.fillValues(num, b)) {
        if (b !== undefined && this.slotBig === null) this.slotBig = new Array<bigint | undefined>(this.capacity).fill(undefined)
        this.slotNum.fill(num)
        this.slotBig?.fill(b)
        this.slotFlag.fill(flag ? 1 : 0)
        this.flagged = flag ? this.capacity : 0
        this.last = firstSeq + n - 1
        return
      }
      s = n - this.capacity
    }
    for (; s < n; s++) this.push(value, firstSeq + s, flag)
  }

  abstract valueAt(k: number): U64

  /** The oldest held sequence number whose value equals `valueAt(k)`. O(W): for explanations, not the hot path. */
  seqAt(k: number): number {
    const v = this.valueAt(k)
    const n = typeof v === 'bigint' ? Number(v) : v
    const b = typeof v === 'bigint' ? v : undefined
    for (let s = this.last - this.count + 1; s <= this.last; s++) {
      const slot = s % this.capacity
      if (this.slotNum[slot] === n && (this.slotBig === null ? undefined : this.slotBig[slot]) === b) return s
    }
    throw new Error('window invariant broken: the value of a rank is not held')
  }

  /**
   * Allocates the window's fixed storage, at its first push: a window never pushed to (the
   * calibrated learner keeps one per chain state, and a chain may never visit some) costs no
   * memory, and one that is costs exactly what it would have from the start.
   */
  private allocate(): void {
    this.slotNum = new Float64Array(this.capacity)
    this.slotFlag = new Uint8Array(this.capacity)
    this.allocateValues()
  }

  /** Allocates the subclass's storage for `capacity` values (called once, at the first push). */
  protected abstract allocateValues(): void
  /** Adds one value (the window is not full). */
  protected abstract add(n: number, b: bigint | undefined): void
  /** Replaces one copy of the held value (on, ob) by (n, b); the two differ. */
  protected abstract replace(on: number, ob: bigint | undefined, n: number, b: bigint | undefined): void
  /** Forgets every value. */
  protected abstract clearValues(): void
  /** Makes a full window hold `capacity` copies of (n, b) and returns true, or returns false to have them pushed one by one. */
  protected fillValues(_n: number, _b: bigint | undefined): boolean {
    return false
  }
}
