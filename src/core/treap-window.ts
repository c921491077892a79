import { compare } from './key.js'
import type { U64 } from './u64.js'
import type { OrderStatisticWindow } from './window.js'

/**
 * Order-statistic window over a counted treap: one node per distinct value held, with its count
 * and the subtree's total count, in fixed typed arrays (a free list reuses nodes). A push into a
 * full window decrements the evicted value and increments the new one: O(1) when they are equal,
 * else O(log D) expected for D distinct values held (D <= W). Keys as in `SortedWindow`: doubles,
 * with the exact bigint beside them where one is large.
 *
 * Invariant: the in-order traversal lists the distinct values held, ascending; `total[t]` is the
 * sum of `cnt` over t's subtree; the multiset equals the values pushed with sequence numbers in
 * (newestSeq - length, newestSeq], which also sit by slot `seq % capacity`.
 */
export class TreapWindow implements OrderStatisticWindow {
  readonly capacity: number
  private readonly keyNum: Float64Array
  private readonly keyBig: (bigint | undefined)[]
  private readonly cnt: Int32Array
  private readonly total: Int32Array
  private readonly left: Int32Array
  private readonly right: Int32Array
  private readonly prio: Uint32Array
  private readonly free: Int32Array
  private freeTop = 0
  private readonly slotNum: Float64Array
  private readonly slotBig: (bigint | undefined)[]
  private readonly slotFlag: Uint8Array
  private root = -1
  private count = 0
  private last = -1
  private flagged = 0
  private rng = 0x9e3779b9

  constructor(capacity: number) {
    this.capacity = capacity
    this.keyNum = new Float64Array(capacity)
    this.keyBig = new Array<bigint | undefined>(capacity).fill(undefined)
    this.cnt = new Int32Array(capacity)
    this.total = new Int32Array(capacity)
    this.left = new Int32Array(capacity)
    this.right = new Int32Array(capacity)
    this.prio = new Uint32Array(capacity)
    this.free = new Int32Array(capacity)
    this.slotNum = new Float64Array(capacity)
    this.slotBig = new Array<bigint | undefined>(capacity).fill(undefined)
    this.slotFlag = new Uint8Array(capacity)
    this.clear()
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
    this.root = -1
    this.count = 0
    this.flagged = 0
    this.last = -1
    for (let i = 0; i < this.capacity; i++) this.free[i] = this.capacity - 1 - i
    this.freeTop = this.capacity
  }

  push(value: U64, seq: number, flag: boolean): void {
    const b = typeof value === 'bigint' ? value : undefined
    const n = b === undefined ? (value as number) : Number(b)
    const slot = seq % this.capacity
    if (this.count === this.capacity) {
      const on = this.slotNum[slot] as number
      const ob = this.slotBig[slot]
      this.flagged -= this.slotFlag[slot] as number
      if (compare(on, ob, n, b) !== 0) {
        this.root = this.remove(this.root, on, ob)
        this.root = this.insert(this.root, n, b)
      }
    } else {
      this.root = this.insert(this.root, n, b)
      this.count++
    }
    this.slotNum[slot] = n
    this.slotBig[slot] = b
    this.slotFlag[slot] = flag ? 1 : 0
    this.flagged += flag ? 1 : 0
    this.last = seq
  }

  valueAt(k: number): U64 {
    let t = this.root
    for (;;) {
      const l = this.left[t] as number
      const ls = l < 0 ? 0 : (this.total[l] as number)
      if (k < ls) t = l
      else if (k < ls + (this.cnt[t] as number)) return this.keyBig[t] ?? (this.keyNum[t] as number)
      else {
        k -= ls + (this.cnt[t] as number)
        t = this.right[t] as number
      }
    }
  }

  /** The oldest held sequence number whose value equals `valueAt(k)`. O(W): for explanations, not the hot path. */
  seqAt(k: number): number {
    const v = this.valueAt(k)
    const n = typeof v === 'bigint' ? Number(v) : v
    const b = typeof v === 'bigint' ? v : undefined
    for (let s = this.last - this.count + 1; s <= this.last; s++) {
      const slot = s % this.capacity
      if (this.slotNum[slot] === n && this.slotBig[slot] === b) return s
    }
    throw new Error('TreapWindow invariant broken: rank value not held')
  }

  private update(t: number): void {
    const l = this.left[t] as number
    const r = this.right[t] as number
    this.total[t] = (this.cnt[t] as number) + (l < 0 ? 0 : (this.total[l] as number)) + (r < 0 ? 0 : (this.total[r] as number))
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

  /** Adds one copy of (n, b) to the subtree at t; returns its new root. */
  private insert(t: number, n: number, b: bigint | undefined): number {
    if (t < 0) {
      const node = this.free[--this.freeTop] as number
      this.keyNum[node] = n
      this.keyBig[node] = b
      this.cnt[node] = 1
      this.total[node] = 1
      this.left[node] = -1
      this.right[node] = -1
      let x = this.rng // xorshift32: deterministic priorities, no clock, no Math.random
      x ^= x << 13
      x ^= x >>> 17
      x ^= x << 5
      this.rng = x >>> 0
      this.prio[node] = this.rng
      return node
    }
    const c = compare(n, b, this.keyNum[t] as number, this.keyBig[t])
    if (c === 0) {
      this.cnt[t] = (this.cnt[t] as number) + 1
      this.total[t] = (this.total[t] as number) + 1
      return t
    }
    if (c < 0) {
      this.left[t] = this.insert(this.left[t] as number, n, b)
      if ((this.prio[this.left[t] as number] as number) > (this.prio[t] as number)) return this.rotateRight(t)
    } else {
      this.right[t] = this.insert(this.right[t] as number, n, b)
      if ((this.prio[this.right[t] as number] as number) > (this.prio[t] as number)) return this.rotateLeft(t)
    }
    this.update(t)
    return t
  }

  /** Removes one copy of (n, b), which is held, from the subtree at t; returns its new root. */
  private remove(t: number, n: number, b: bigint | undefined): number {
    const c = compare(n, b, this.keyNum[t] as number, this.keyBig[t])
    if (c === 0) {
      if ((this.cnt[t] as number) > 1) {
        this.cnt[t] = (this.cnt[t] as number) - 1
        this.total[t] = (this.total[t] as number) - 1
        return t
      }
      return this.drop(t)
    }
    if (c < 0) this.left[t] = this.remove(this.left[t] as number, n, b)
    else this.right[t] = this.remove(this.right[t] as number, n, b)
    this.update(t)
    return t
  }

  /** Rotates node t down to a leaf and frees it; returns the subtree's new root. */
  private drop(t: number): number {
    const l = this.left[t] as number
    const r = this.right[t] as number
    if (l < 0 || r < 0) {
      this.keyBig[t] = undefined
      this.free[this.freeTop++] = t
      return l < 0 ? r : l
    }
    if ((this.prio[l] as number) > (this.prio[r] as number)) {
      const top = this.rotateRight(t)
      this.right[top] = this.drop(t)
      this.update(top)
      return top
    }
    const top = this.rotateLeft(t)
    this.left[top] = this.drop(t)
    this.update(top)
    return top
  }
}
