/** A signed transaction waiting in the mempool: what the model knows before it is committed. */
export interface PendingTxn {
  /** Arrival order across the whole run; ties in price go to the earlier arrival. */
  arrival: number
  /** Index of the sender in the account pool. */
  sender: number
  /** Sequence number, or `null` for an orderless transaction (replay protection by nonce). */
  sequence_number: number | null
  /** Nonce of an orderless transaction (decimal u64), else `null`. */
  replay_protection_nonce: string | null
  gas_unit_price: number
  max_gas_amount: number
  /** Gas the transaction will use when executed. */
  gas_used: number
  expiration_timestamp_secs: number
  /** Entry function called, `{address}::{module}::{function}`. */
  function: string
  type_arguments: string[]
  arguments: unknown[]
  /** Approximate output bytes, for the block's `block_approx_output_size`. */
  output_bytes: number
}

/** What a block proposal may hold. */
export interface BlockLimits {
  /** Most user transactions per block. */
  max_block_txns: number
  /** Effective block gas units at which execution stops (the txn that reaches it is kept). */
  block_gas_limit: number
  /** Approximate output bytes at which execution stops. */
  block_output_limit: number
}

/** The user transactions chosen for a block and why the block ended. */
export interface BlockSelection {
  txns: PendingTxn[]
  gas_used: number
  output_bytes: number
  block_gas_limit_reached: boolean
  block_output_limit_reached: boolean
}

/**
 * Pending transactions ordered by `gas_unit_price` descending, then arrival ascending — the
 * order in which a block takes them. Kept sorted on insert (binary search + splice, O(n)
 * memmove), so selection is a walk from the front.
 */
export class Mempool {
  private queue: PendingTxn[] = []
  /** A lower bound on the earliest expiration in the queue (exact after each scan). */
  private earliestExpiration = Infinity

  get size(): number {
    return this.queue.length
  }

  add(txn: PendingTxn): void {
    const q = this.queue
    let lo = 0
    let hi = q.length
    // invariant: q[0..lo) goes before txn, q[hi..) after
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (before(q[mid] as PendingTxn, txn)) lo = mid + 1
      else hi = mid
    }
    q.splice(lo, 0, txn)
    if (txn.expiration_timestamp_secs < this.earliestExpiration) this.earliestExpiration = txn.expiration_timestamp_secs
  }

  /**
   * Removes and returns the transactions a block at `now_secs` (its timestamp in whole seconds)
   * may no longer include: Aptos rejects a txn once `now_secs >= expiration_timestamp_secs`.
   */
  expire(now_secs: number): PendingTxn[] {
    // O(1) while nothing can have expired, else one O(n) pass that also renews the bound.
    if (now_secs < this.earliestExpiration) return []
    const expired: PendingTxn[] = []
    const kept: PendingTxn[] = []
    let earliest = Infinity
    for (const t of this.queue) {
      if (t.expiration_timestamp_secs <= now_secs) expired.push(t)
      else {
        kept.push(t)
        if (t.expiration_timestamp_secs < earliest) earliest = t.expiration_timestamp_secs
      }
    }
    this.queue = kept
    this.earliestExpiration = earliest
    return expired
  }

  /**
   * Takes transactions in priority order until the count limit, or until the block gas (or
   * output) limit is reached — the transaction that reaches it is the last one executed, as
   * Aptos' block executor halts once the accumulated effective gas meets the limit.
   */
  take(limits: BlockLimits): BlockSelection {
    const q = this.queue
    let n = 0
    let gas = 0
    let output = 0
    let gasReached = false
    let outputReached = false
    while (n < q.length && n < limits.max_block_txns) {
      const t = q[n] as PendingTxn
      gas += t.gas_used
      output += t.output_bytes
      n++
      gasReached = gas >= limits.block_gas_limit
      outputReached = output >= limits.block_output_limit
      if (gasReached || outputReached) break
    }
    const txns = q.splice(0, n)
    return { txns, gas_used: gas, output_bytes: output, block_gas_limit_reached: gasReached, block_output_limit_reached: outputReached }
  }
}

function before(a: PendingTxn, b: PendingTxn): boolean {
  return a.gas_unit_price > b.gas_unit_price || (a.gas_unit_price === b.gas_unit_price && a.arrival < b.arrival)
}
