import { randomAddress, randomHex } from './hex.js'
import type { Rng } from './prng.js'

/**
 * The senders. Each account has an address, an ed25519 public key and the sequence number its
 * next transaction must carry. An account has at most one sequence-number transaction pending
 * at a time (a wallet waits for confirmation before it signs the next), so the numbers that
 * reach the chain are 0, 1, 2, … per sender with no gaps: a transaction that expires leaves the
 * number unused and the sender's next one reuses it.
 */
export class AccountPool {
  readonly addresses: readonly string[]
  readonly publicKeys: readonly string[]
  private readonly nextSequence: Float64Array
  private readonly pending: Uint8Array

  constructor(rng: Rng, count: number) {
    const addresses: string[] = []
    const keys: string[] = []
    for (let i = 0; i < count; i++) {
      addresses.push(randomAddress(rng))
      keys.push(randomHex(rng, 32))
    }
    this.addresses = addresses
    this.publicKeys = keys
    this.nextSequence = new Float64Array(count)
    this.pending = new Uint8Array(count)
  }

  get size(): number {
    return this.addresses.length
  }

  /**
   * Any account by activity: index ⌊n·u^2.5⌋, so a few hundred busy accounts (bots, exchanges)
   * send most transactions and thousands send a few.
   */
  pickAny(rng: Rng): number {
    return Math.floor(this.size * Math.pow(rng.float(), 2.5))
  }

  /** An account with nothing pending, or -1 if `tries` draws all hit busy ones (the sender gives up). */
  pickIdle(rng: Rng, tries = 16): number {
    for (let t = 0; t < tries; t++) {
      const i = this.pickAny(rng)
      if (this.pending[i] === 0) return i
    }
    return -1
  }

  /** Marks `account` as having a pending transaction and returns the sequence number it carries. */
  submit(account: number): number {
    this.pending[account] = 1
    return this.nextSequence[account] as number
  }

  /** The pending transaction of `account` left the mempool; if committed, the next number is used. */
  settle(account: number, committed: boolean): void {
    this.pending[account] = 0
    if (committed) this.nextSequence[account] = (this.nextSequence[account] as number) + 1
  }
}
