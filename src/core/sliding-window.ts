import type { U64 } from './u64.js'
import { createWindow, type OrderStatisticWindow } from './window.js'

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
  private readonly impl: OrderStatisticWindow
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
