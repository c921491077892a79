import type { MultisetWindow } from './multiset-window.js'
import { SortedWindow } from './sorted-window.js'
import { TreapWindow } from './treap-window.js'
import type { U64 } from './u64.js'

/**
 * The newest `capacity` values of a stream, answering order statistics. Values are pushed with
 * consecutive sequence numbers; pushing into a full window evicts the oldest value. Memory
 * grows with the values held, in eightfold steps (see `grownSize`), up to a bound fixed by the
 * capacity (a window never used costs nothing); once the window is full no push allocates.
 */
export interface OrderStatisticWindow {
  readonly capacity: number
  /** Number of values held (at most `capacity`). */
  readonly length: number
  /** How many held values were pushed with `flag` set (e.g. full blocks). */
  readonly flaggedCount: number
  /** Sequence number of the newest value, or -1 when empty. */
  readonly newestSeq: number
  /** Adds `value` with sequence number `seq` (the previous one + 1 while non-empty). */
  push(value: U64, seq: number, flag: boolean): void
  /** Value of rank `k` (0 = smallest); requires 0 <= k < length. */
  valueAt(k: number): U64
  /** The oldest held sequence number whose value equals `valueAt(k)` (for explanations). */
  seqAt(k: number): number
  /** Empties the window. */
  clear(): void
}

/**
 * Windows up to this size keep a sorted typed array: a push moves at most this many doubles
 * (one memmove), which beats a treap's pointer chasing at Aptos-sized windows (10/30/120).
 * Larger windows use the treap, O(log W) per push.
 */
export const SORTED_WINDOW_MAX = 1024

/** The window implementation suited to `capacity`. */
export function createWindow(capacity: number): MultisetWindow {
  return capacity <= SORTED_WINDOW_MAX ? new SortedWindow(capacity) : new TreapWindow(capacity)
}

/**
 * The newest `capacity` values of a stream with O(log W) order statistics, for strategies
 * built on the engine: a sorted typed array for Aptos-sized windows, a treap for large ones
 * (see `createWindow`).
 *
 * @example
 * const w = new SlidingWindow(20)
 * prices.forEach((p, i) => w.push(p, i, false))
 * w.valueAt(Math.floor(w.length * 0.6)) // 60th percentile of the last 20
 */
export class SlidingWindow implements OrderStatisticWindow {
  private readonly impl: MultisetWindow
  constructor(capacity: number) {
    this.impl = createWindow(capacity)
  }
  get capacity(): number {
    return this.impl.capacity
  }
  get length(): number {
    return this.impl.length
  }
  get flaggedCount(): number {
    return this.impl.flaggedCount
  }
  get newestSeq(): number {
    return this.impl.newestSeq
  }
  push(value: U64, seq: number, flag: boolean): void {
    this.impl.push(value, seq, flag)
  }
  /** Pushes `value` n times with sequence numbers `firstSeq` onwards: the same window as n `push` calls, in O(min(n, W)) pushes. */
  pushRepeat(value: U64, firstSeq: number, n: number, flag: boolean): void {
    this.impl.pushRepeat(value, firstSeq, n, flag)
  }
  valueAt(k: number): U64 {
    return this.impl.valueAt(k)
  }
  seqAt(k: number): number {
    return this.impl.seqAt(k)
  }
  clear(): void {
    this.impl.clear()
  }
}
