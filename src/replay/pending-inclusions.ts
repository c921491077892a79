import type { U64 } from '../core/u64.js'
import type { Requirement } from '../core/requirement.js'

/** Distinct pending prices kept per track before the cheapest group is given up as censored. */
export const MAX_PENDING_PRICES = 65_536

/** Waiting transactions at one price: how many, the sum and the minimum of their submission indices. */
interface Group {
  count: number
  sumT: number
  minT: number
}

/** Delay totals of one track. */
export interface DelayTotals {
  /** Transactions that were included before the data ended. */
  included: number
  /** Sum of their delays in blocks (delay = inclusion block index − submission block index, ≥ 1). */
  sum_delay: number
  /** Longest delay seen. */
  max_delay: number
  /** Transactions never included before the data ended (or dropped past `MAX_PENDING_PRICES`). */
  censored: number
}

/**
 * Waiting transactions of one price track, for exact delays in bounded memory: one group per
 * distinct waiting price (count and sum of submission indices), in a max-heap by price. A block
 * with requirement r includes every group priced >= r, which are exactly the heap's top groups.
 * Memory is O(distinct waiting prices): estimates are mostly bucket values, and any block that
 * is not full (r = 0) empties the heap. Past `MAX_PENDING_PRICES` groups the cheapest group is
 * dropped and counted as censored (O(P) then, a pathological case).
 */
export class PendingInclusions {
  private readonly heap: U64[] = []
  private readonly groups = new Map<U64, Group>()
  readonly totals: DelayTotals = { included: 0, sum_delay: 0, max_delay: 0, censored: 0 }

  /** Registers a transaction priced `price` submitted right after block `t`. O(log P). */
  add(price: U64, t: number): void {
    const g = this.groups.get(price)
    if (g !== undefined) {
      g.count++
      g.sumT += t
      return
    }
    if (this.heap.length >= MAX_PENDING_PRICES) this.dropCheapest()
    this.groups.set(price, { count: 1, sumT: t, minT: t })
    this.heap.push(price)
    this.siftUp(this.heap.length - 1)
  }

  /** Includes in block `j` every waiting transaction priced >= `req`. O(g log P) for g groups included. */
  include(req: Requirement, j: number): void {
    const heap = this.heap
    const totals = this.totals
    while (heap.length > 0 && (heap[0] as U64) >= req) {
      const price = heap[0] as U64
      const g = this.groups.get(price) as Group
      this.groups.delete(price)
      totals.included += g.count
      totals.sum_delay += g.count * j - g.sumT
      if (j - g.minT > totals.max_delay) totals.max_delay = j - g.minT
      this.popTop()
    }
  }

  /** Marks everything still waiting as censored (call at the end of the data). */
  close(): void {
    for (const g of this.groups.values()) this.totals.censored += g.count
    this.groups.clear()
    this.heap.length = 0
  }

  private dropCheapest(): void {
    const heap = this.heap
    let at = heap.length >> 1 // the minimum of a max-heap is a leaf
    for (let i = at + 1; i < heap.length; i++) if ((heap[i] as U64) < (heap[at] as U64)) at = i
    const price = heap[at] as U64
    this.totals.censored += (this.groups.get(price) as Group).count
    this.groups.delete(price)
    const last = heap.pop() as U64
    if (at < heap.length) {
      heap[at] = last
      this.siftUp(at)
    }
  }

  private popTop(): void {
    const heap = this.heap
    const last = heap.pop() as U64
    if (heap.length === 0) return
    heap[0] = last
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let top = i
      if (l < heap.length && (heap[l] as U64) > (heap[top] as U64)) top = l
      if (r < heap.length && (heap[r] as U64) > (heap[top] as U64)) top = r
      if (top === i) return
      ;[heap[i], heap[top]] = [heap[top] as U64, heap[i] as U64]
      i = top
    }
  }

  private siftUp(i: number): void {
    const heap = this.heap
    while (i > 0) {
      const p = (i - 1) >> 1
      if ((heap[p] as U64) >= (heap[i] as U64)) return
      ;[heap[i], heap[p]] = [heap[p] as U64, heap[i] as U64]
      i = p
    }
  }
}
