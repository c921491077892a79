import { MultisetWindow, compare } from './multiset-window.js'
import type { U64 } from './u64.js'

/**
 * Order-statistic window over a counted treap: one node per distinct value held, with its count
 * and the subtree's total count, in fixed typed arrays (a free list reuses nodes). A push into a
 * full window decrements the evicted value and increments the new one: O(1) when they are equal,
 * else O(log D) expected for D distinct values held (D <= W). Keys as in `SortedWindow`: doubles,
 * with the exact bigint beside them where one is large.
 *
 * Invariant: the in-order traversal lists the distinct values held, ascending; `total[t]` is the
 * sum of `cnt` over t's subtree; the multiset equals the values pushed with sequence numbers in
 * (newestSeq - length, newestSeq].
 */
export class TreapWindow extends MultisetWindow {
  private readonly keyNum: Float64Array
  private readonly keyBig: (bigint | undefined)[]
  private readonly cnt: Int32Array
  private readonly total: Int32Array
  private readonly left: Int32Array
  private readonly right: Int32Array
  private readonly prio: Uint32Array
  private readonly free: Int32Array
  private freeTop = 0
  private root = -1
  private rng = 0x9e3779b9

  constructor(capacity: number) {
    super(capacity)
    this.keyNum = new Float64Array(capacity)
    this.keyBig = new Array<bigint | undefined>(capacity).fill(undefined)
    this.cnt = new Int32Array(capacity)
    this.total = new Int32Array(capacity)
    this.left = new Int32Array(capacity)
    this.right = new Int32Array(capacity)
    this.prio = new Uint32Array(capacity)
    this.free = new Int32Array(capacity)
    this.clearValues()
  }

  /** The treap's arrays are allocated with the window: windows this large are few and always in use. */
  protected growValues(): void {}

  protected clearValues(): void {
    this.root = -1
    for (let i = 0; i < this.capacity; i++) this.free[i] = this.capacity - 1 - i
    this.freeTop = this.capacity
  }

  protected add(n: number, b: bigint | undefined): void {
    this.root = this.insert(this.root, n, b)
  }

  protected replace(on: number, ob: bigint | undefined, n: number, b: bigint | undefined): void {
    this.root = this.remove(this.root, on, ob)
    this.root = this.insert(this.root, n, b)
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
