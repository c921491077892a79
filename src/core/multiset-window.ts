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

/** Storage of every window not yet pushed to: no length, so nothing is ever written to it (a push grows first). */
const NO_NUMS = new Float64Array(0)
const NO_FLAGS = new Uint8Array(0)

/**
 * Slots a window allocates at its first push; it grows eightfold from there as it fills, up to
 * its capacity. Eight doubles are 64 bytes, the most V8 keeps inside the heap object; a larger
 * typed array gets a backing store of its own, which costs far more to make and to collect than
 * its bytes, so the window takes few, large steps (8, 64, 512, …): a window filled to 1,000
 * values makes three such stores per array instead of the seven doubling would.
 */
export const FIRST_SLOTS = 8

/** How many times larger each step of a window's storage is. */
const GROWTH = 8

/**
 * The size a window's storage grows to when it needs `slots` slots and holds `size`:
 * `GROWTH` times larger (at least `FIRST_SLOTS`), never beyond `capacity`. Each value is
 * copied at most 1/(GROWTH − 1) times on average on the way to a full window.
 */
export function grownSize(size: number, slots: number, capacity: number): number {
  return Math.min(capacity, Math.max(FIRST_SLOTS, GROWTH * size, slots))
}

/**
 * What the window kinds share: the ring of the newest `capacity` values by slot
 * `(seq − origin) mod capacity`, origin the first sequence number pushed into the empty window
 * (read back to evict, and to answer `seqAt`), the count of flagged values, and the push
 * protocol. The ring's storage grows as the window fills (while it is not full, the values sit
 * in slots [0, length)), so a window costs memory in proportion to what it has held, at most its
 * capacity; once full, no push allocates. A subclass keeps the values as an ordered multiset: `add` one value (window not full)
 * or `replace` the evicted value by the new one (they differ; equal values need no work).
 * Keys are doubles (exact for safe integers, monotonic for bigints) with the exact bigint beside
 * them where a value is above 2^53.
 */
export abstract class MultisetWindow implements OrderStatisticWindow {
  readonly capacity: number
  /** Empty until the first push, then grown with the window (see `grow`), at most `capacity` long. */
  private slotNum: Float64Array = NO_NUMS
  /** Exact bigints of the values above 2^53 by slot; allocated (`capacity` long) when the first one is pushed. */
  private slotBig: (bigint | undefined)[] | null = null
  private slotFlag: Uint8Array = NO_FLAGS
  /** Values held; `add` runs before it is incremented. */
  protected count = 0
  private last = -1
  private flagged = 0
  /** The sequence number in slot 0, and the slot of sequence number `last + 1`: consecutive pushes take the next slot without a division. */
  private origin = 0
  private cursor = 0

  constructor(capacity: number) {
    this.capacity = capacity
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
    const next = this.cursor
    if (this.count === this.capacity && seq === this.last + 1 && this.slotNum[next] === value && this.slotBig === null) {
      // the value evicted is the value pushed (a steady series): the multiset is unchanged, only the flag and the newest seq move
      const f = flag ? 1 : 0
      this.flagged += f - (this.slotFlag[next] as number)
      this.slotFlag[next] = f
      this.last = seq
      this.cursor = next + 1 === this.capacity ? 0 : next + 1
      return
    }
    this.pushChanged(value, seq, flag)
  }

  /** `push` where the multiset may change; kept apart so that `push` is small enough for the compiler to inline at its callers. */
  private pushChanged(value: U64, seq: number, flag: boolean): void {
    const b = typeof value === 'bigint' ? value : undefined
    const n = b === undefined ? (value as number) : Number(b)
    let slot = 0
    if (this.count === 0) this.origin = seq
    else slot = seq === this.last + 1 ? this.cursor : this.slotOf(seq)
    if (b !== undefined && this.slotBig === null) this.slotBig = new Array<bigint | undefined>(this.capacity).fill(undefined)
    if (this.count === this.capacity) {
      const on = this.slotNum[slot] as number
      const ob = this.slotBig === null ? undefined : this.slotBig[slot]
      this.flagged -= this.slotFlag[slot] as number
      if (compare(on, ob, n, b) !== 0) this.replace(on, ob, n, b)
    } else {
      if (slot >= this.slotNum.length) this.grow(slot + 1)
      this.add(n, b)
      this.count++
    }
    this.slotNum[slot] = n
    if (this.slotBig !== null) this.slotBig[slot] = b
    this.slotFlag[slot] = flag ? 1 : 0
    this.flagged += flag ? 1 : 0
    this.last = seq
    this.cursor = slot + 1 === this.capacity ? 0 : slot + 1
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
        this.cursor = this.slotOf(this.last + 1)
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
      const slot = this.slotOf(s)
      if (this.slotNum[slot] === n && (this.slotBig === null ? undefined : this.slotBig[slot]) === b) return s
    }
    throw new Error('window invariant broken: the value of a rank is not held')
  }

  /** The slot of sequence number `seq` (at or after the origin). */
  private slotOf(seq: number): number {
    return (seq - this.origin) % this.capacity
  }

  /**
   * Grows the ring (and the subclass's storage, `growValues`) to hold at least `slots` values:
   * a window never pushed to costs nothing, one that a chain visits a few times costs a few
   * slots (the calibrated learner keeps one per chain state, and a chain may visit some rarely),
   * and a full one exactly its capacity.
   */
  private grow(slots: number): void {
    const size = grownSize(this.slotNum.length, slots, this.capacity)
    const num = new Float64Array(size)
    num.set(this.slotNum)
    const flag = new Uint8Array(size)
    flag.set(this.slotFlag)
    this.slotNum = num
    this.slotFlag = flag
    this.growValues(size)
  }

  /** Grows the subclass's storage to hold `size` values, keeping the `length` held (`size` is at most `capacity`). */
  protected abstract growValues(size: number): void
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
