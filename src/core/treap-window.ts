import type { OrderStatisticWindow } from './window.js'
import type { U64 } from './u64.js'

/**
 * The newest `capacity` values of a stream, kept ordered for O(log W) order statistics: a treap
 * over (value, sequence number) whose nodes live in fixed typed arrays. The value pushed with
 * sequence number `s` occupies slot `s % capacity`, so pushing a value into a full window first
 * evicts the value pushed `capacity` sequence numbers earlier. Memory is fixed at construction;
 * push allocates nothing.
 *
 * Invariant: the treap holds exactly the values with sequence numbers in
 * `(lastSeq - size, lastSeq]`, in-order sorted by (value, seq), heap-ordered by priority.
 */
export class TreapWindow implements OrderStatisticWindow {
  readonly capacity: number
  /** Keys as doubles: exact for safe integers, order-preserving (non-strictly) for bigints. */
  private readonly keyNum: Float64Array
  /** The exact key where it is a bigint, else undefined; consulted only when doubles tie. */
  private readonly keyBig: (bigint | undefined)[]
  private readonly seqOf: Float64Array
  private readonly left: Int32Array
  private readonly right: Int32Array
  private readonly size: Int32Array
  private readonly prio: Uint32Array
  private readonly flag: Uint8Array
  private root = -1
  private count = 0
  private lastSeq = -1
  private flagged = 0
  private rng = 0x9e3779b9

  constructor(capacity: number) {
    this.capacity = capacity
    this.keyNum = new Float64Array(capacity)
    this.keyBig = new Array<bigint | undefined>(capacity).fill(undefined)
    this.seqOf = new Float64Array(capacity)
    this.left = new Int32Array(capacity)
    this.right = new Int32Array(capacity)
    this.size = new Int32Array(capacity)
    this.prio = new Uint32Array(capacity)
    this.flag = new Uint8Array(capacity)
  }

  /** Number of values held (at most `capacity`). */
  get length(): number {
    return this.count
  }

  /** How many held values were pushed with `flag` set (e.g. full blocks). */
  get flaggedCount(): number {
    return this.flagged
  }

  /** Sequence number of the newest value, or -1 when empty. */
  get newestSeq(): number {
    return this.count === 0 ? -1 : this.lastSeq
  }

  /** Empties the window; O(1). */
  clear(): void {
    this.root = -1
    this.count = 0
    this.flagged = 0
    this.lastSeq = -1
  }

  /**
   * Adds `value` with sequence number `seq` (strictly greater than the previous one and
   * consecutive to it while the window is non-empty), evicting the oldest value when full.
   * O(log W) expected.
   */
  push(value: U64, seq: number, flag: boolean): void {
    const slot = seq % this.capacity
    if (this.count === this.capacity) {
      this.root = this.remove(this.root, slot)
      this.flagged -= this.flag[slot] as number
      this.count--
    }
    if (typeof value === 'number') {
      this.keyNum[slot] = value
      this.keyBig[slot] = undefined
    } else {
      this.keyNum[slot] = Number(value)
      this.keyBig[slot] = value
    }
    this.seqOf[slot] = seq
    this.left[slot] = -1
    this.right[slot] = -1
    this.size[slot] = 1
    this.flag[slot] = flag ? 1 : 0
    this.flagged += flag ? 1 : 0
    // xorshift32: deterministic priorities, no clock, no Math.random
    let x = this.rng
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    this.rng = x >>> 0
    this.prio[slot] = this.rng
    this.root = this.insert(this.root, slot)
    this.count++
    this.lastSeq = seq
  }

  /** Value of rank `k` (0 = smallest) among the held values. Requires 0 <= k < length. O(log W). */
  valueAt(k: number): U64 {
    const slot = this.slotAt(k)
    return this.keyBig[slot] ?? (this.keyNum[slot] as number)
  }

  /** Sequence number of the value of rank `k` (ties: the older value ranks first). O(log W). */
  seqAt(k: number): number {
    return this.seqOf[this.slotAt(k)] as number
  }

  private slotAt(k: number): number {
    let t = this.root
    for (;;) {
      const l = this.left[t] as number
      const ls = l < 0 ? 0 : (this.size[l] as number)
      if (k < ls) t = l
      else if (k === ls) return t
      else {
        k -= ls + 1
        t = this.right[t] as number
      }
    }
  }

  private less(a: number, b: number): boolean {
    const na = this.keyNum[a] as number
    const nb = this.keyNum[b] as number
    if (na !== nb) return na < nb // Number() is monotonic, so differing doubles decide exactly
    const ba = this.keyBig[a]
    const bb = this.keyBig[b]
    if (ba !== undefined || bb !== undefined) {
      const ea = ba ?? na
      const eb = bb ?? nb
      if (ea !== eb) return ea < eb
    }
    return (this.seqOf[a] as number) < (this.seqOf[b] as number)
  }

  private update(t: number): void {
    const l = this.left[t] as number
    const r = this.right[t] as number
    this.size[t] = 1 + (l < 0 ? 0 : (this.size[l] as number)) + (r < 0 ? 0 : (this.size[r] as number))
  }

  private rotateRight(t: number): number {
    const l = this.left[t] as number
    this.left[t] = this.right[l] as number
    this.right[l] = t
    this.update(t)
    this.update(l)
    return l
  }

  private rotateLeft(t: number): number {
    const r = this.right[t] as number
    this.right[t] = this.left[r] as number
    this.left[r] = t
    this.update(t)
    this.update(r)
    return r
  }

  private insert(t: number, n: number): number {
    if (t < 0) return n
    if (this.less(n, t)) {
      this.left[t] = this.insert(this.left[t] as number, n)
      if ((this.prio[this.left[t] as number] as number) > (this.prio[t] as number)) return this.rotateRight(t)
    } else {
      this.right[t] = this.insert(this.right[t] as number, n)
      if ((this.prio[this.right[t] as number] as number) > (this.prio[t] as number)) return this.rotateLeft(t)
    }
    this.update(t)
    return t
  }

  private remove(t: number, n: number): number {
    if (t === n) {
      const l = this.left[t] as number
      const r = this.right[t] as number
      if (l < 0) return r
      if (r < 0) return l
      if ((this.prio[l] as number) > (this.prio[r] as number)) {
        const top = this.rotateRight(t)
        this.right[top] = this.remove(this.right[top] as number, n)
        this.update(top)
        return top
      }
      const top = this.rotateLeft(t)
      this.left[top] = this.remove(this.left[top] as number, n)
      this.update(top)
      return top
    }
    if (this.less(n, t)) this.left[t] = this.remove(this.left[t] as number, n)
    else this.right[t] = this.remove(this.right[t] as number, n)
    this.update(t)
    return t
  }
}
