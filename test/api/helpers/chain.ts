import { createHash } from 'node:crypto'
import type { BlockJson, TransactionJson, UserTransactionJson } from '../../../src/ledger/types.js'

/** Canonical long address of a small account number. */
export function addr(n: number): string {
  return `0x${n.toString(16).padStart(64, '0')}`
}

function hash(...parts: unknown[]): string {
  return `0x${createHash('sha256').update(parts.join('/')).digest('hex')}`
}

/** A user transaction of a block under construction. */
export interface UserSpec {
  sender: number
  /** Orderless: carries a nonce and no place in the account's sequence. */
  nonce?: number
  price?: number | bigint
}

/**
 * A small valid chain for the API tests: block metadata, user txns, block epilogue; contiguous
 * heights and versions; each sender's sequence numbers continue. Starts anywhere (`height`,
 * `version`) like a pruned node.
 */
export class Chain {
  height: number
  version: number
  epoch = 1
  private readonly seqs = new Map<number, number>()

  constructor(start: { height?: number; version?: number } = {}) {
    this.height = start.height ?? 0
    this.version = start.version ?? 0
  }

  /** Sets the next sequence number of a sender (its earlier txns lie before this chain). */
  startSequence(sender: number, seq: number): this {
    this.seqs.set(sender, seq)
    return this
  }

  block(users: UserSpec[] = []): BlockJson {
    const height = this.height++
    const first = this.version
    const ts = String(1_700_000_000_000_000 + height * 250_000)
    const info = (v: number) => ({
      version: String(v),
      hash: hash('txn', v),
      state_change_hash: hash('state', v),
      event_root_hash: hash('events', v),
      state_checkpoint_hash: null,
      gas_used: '0',
      success: true,
      vm_status: 'Executed successfully',
      accumulator_root_hash: hash('acc', v),
      changes: [],
    })
    const txns: TransactionJson[] = [
      {
        ...info(this.version++),
        type: 'block_metadata_transaction',
        id: hash('block', height),
        epoch: String(this.epoch),
        round: String(height + 1),
        events: [],
        previous_block_votes_bitvec: [],
        proposer: addr(0xa11ce),
        failed_proposer_indices: [],
        timestamp: ts,
      },
    ]
    for (const u of users) {
      // Orderless txns carry u64::MAX as their sequence number, as the node writes them.
      let sequence = '18446744073709551615'
      if (u.nonce === undefined) {
        const seq = this.seqs.get(u.sender) ?? 0
        this.seqs.set(u.sender, seq + 1)
        sequence = String(seq)
      }
      const v = this.version++
      const user: UserTransactionJson = {
        ...info(v),
        gas_used: '9',
        type: 'user_transaction',
        sender: addr(u.sender),
        sequence_number: sequence,
        max_gas_amount: '200000',
        gas_unit_price: String(u.price ?? 100),
        expiration_timestamp_secs: String(1_700_000_600 + height),
        payload: { type: 'entry_function_payload', function: '0x1::aptos_account::transfer', type_arguments: [], arguments: [addr(2), '1'] },
        signature: { type: 'ed25519_signature', public_key: hash('pk', u.sender), signature: `${hash('s1', v)}${hash('s2', v).slice(2)}` },
        replay_protection_nonce: u.nonce === undefined ? null : String(u.nonce),
        events: [],
        timestamp: ts,
      }
      txns.push(user)
    }
    txns.push({
      ...info(this.version++),
      type: 'block_epilogue_transaction',
      timestamp: ts,
      block_end_info: { block_gas_limit_reached: false, block_output_limit_reached: false, block_effective_block_gas_units: 0, block_approx_output_size: 0 },
    })
    return {
      block_height: String(height),
      block_hash: hash('block', height),
      block_timestamp: ts,
      first_version: String(first),
      last_version: String(this.version - 1),
      transactions: txns,
    }
  }

  /** `count` blocks, each with `users(i)`'s transactions. */
  blocks(count: number, users: (i: number) => UserSpec[] = () => []): BlockJson[] {
    return Array.from({ length: count }, (_, i) => this.block(users(i)))
  }
}

/**
 * Blocks of `chain`, one per entry of `prices`: three user txns whose cheapest pays the price
 * (full under `full_block_txns: 3`), or none for `null`.
 */
export function pricedChain(prices: readonly (number | bigint | null)[], chain = new Chain()): BlockJson[] {
  return prices.map((p, i) =>
    chain.block(p === null ? [] : [{ sender: 10 + i, price: p }, { sender: 500 + i, price: BigInt(p) + 7n }, { sender: 900 + i, price: BigInt(p) + 50n }]),
  )
}
