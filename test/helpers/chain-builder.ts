import { createHash } from 'node:crypto'
import { U64_MAX, type U64 } from '../../src/core/u64.js'
import type {
  BlockEndInfoJson,
  BlockEpilogueTransactionJson,
  BlockJson,
  BlockMetadataTransactionJson,
  TransactionJson,
  UserTransactionJson,
} from '../../src/ledger/store/types.js'

/** The canonical long form of a small account number: `addr(10)` = `0x000…00a`. */
export function addr(n: number | bigint): string {
  return `0x${n.toString(16).padStart(64, '0')}`
}

/** A deterministic `0x` + 64 hex hash of anything. */
export function hashOf(...parts: unknown[]): string {
  return `0x${createHash('sha256').update(parts.map(String).join('/')).digest('hex')}`
}

/**
 * A user transaction to put in a block; `seq` defaults to the sender's next one, or for an
 * orderless transaction to u64::MAX, as the node writes them.
 */
export interface UserSpec {
  /** Account number (see `addr`) or an address string as it should appear in the JSON. */
  sender: number | string
  seq?: U64 | undefined
  /** Makes it an orderless transaction (`replay_protection_nonce` set, not indexed by account). */
  nonce?: U64
  /** Default 100. */
  gas_unit_price?: U64
  /** Default 7. */
  gas_used?: number
  /** `{address}::{module}::{function}`; default a framework call. */
  function?: string
}

export interface BlockSpec {
  users?: UserSpec[]
  epoch?: U64
  /** The epilogue's `block_end_info`; `false` leaves the epilogue out. */
  epilogue?: BlockEndInfoJson | null | false
}

const INFO_DEFAULTS = {
  state_change_hash: hashOf('state'),
  event_root_hash: hashOf('events'),
  state_checkpoint_hash: null,
  success: true,
  vm_status: 'Executed successfully',
  accumulator_root_hash: hashOf('accumulator'),
  changes: [],
}

/**
 * The one builder of valid test chains (ledger, API, follower and reliability tests): each block
 * is a block metadata txn, the user txns asked for, and a block epilogue, with consecutive
 * heights and versions, each sender's sequence numbers continuing, and a timestamp of
 * 1,700,000,000 s + 0.25 s per height unless told otherwise. Start anywhere (a pruned node) with
 * `height`/`version`; heights, versions and epochs are exact u64 up to 2^64−1.
 *
 * @example new ChainBuilder({ height: 10, version: 500 }).block({ users: [{ sender: 1 }] })
 */
export class ChainBuilder {
  height: bigint
  version: bigint
  epoch: bigint
  timestamp: bigint
  /** Next sequence number per sender key (the `sender` as given). */
  readonly seqs = new Map<string, bigint>()

  constructor(start: { height?: U64; version?: U64; epoch?: U64; timestamp?: U64 } = {}) {
    this.height = BigInt(start.height ?? 0)
    this.version = BigInt(start.version ?? 0)
    this.epoch = BigInt(start.epoch ?? 1)
    this.timestamp = start.timestamp !== undefined ? BigInt(start.timestamp) : 1_700_000_000_000_000n + this.height * 250_000n
  }

  /** Sets the next sequence number of a sender (its earlier txns lie before this chain). */
  startSequence(sender: number | string, seq: U64): this {
    this.seqs.set(typeof sender === 'number' ? addr(sender) : sender, BigInt(seq))
    return this
  }

  /** The next block; advances height, version, timestamp and the senders' sequence numbers. */
  block(spec: BlockSpec = {}): BlockJson {
    if (spec.epoch !== undefined) this.epoch = BigInt(spec.epoch)
    const height = this.height
    const first = this.version
    const ts = String(this.timestamp)
    const txns: TransactionJson[] = []
    let v = first
    const base = (kind: string) => ({ version: String(v), hash: hashOf(kind, v), ...INFO_DEFAULTS })
    const metadata: BlockMetadataTransactionJson = {
      ...base('metadata'),
      gas_used: '0',
      id: hashOf('block', height),
      epoch: String(this.epoch),
      round: String(height + 1n),
      events: [],
      previous_block_votes_bitvec: [],
      proposer: addr(0xa11ce),
      failed_proposer_indices: [],
      timestamp: ts,
      type: 'block_metadata_transaction',
    }
    txns.push(metadata)
    v++
    for (const u of spec.users ?? []) {
      const sender = typeof u.sender === 'number' ? addr(u.sender) : u.sender
      const orderless = u.nonce !== undefined
      let seq: bigint
      if (orderless) seq = BigInt(u.seq ?? U64_MAX)
      else {
        seq = BigInt(u.seq ?? this.seqs.get(sender) ?? 0)
        this.seqs.set(sender, seq + 1n)
      }
      const user: UserTransactionJson = {
        ...base('user'),
        gas_used: String(u.gas_used ?? 7),
        sender,
        sequence_number: String(seq),
        max_gas_amount: '200000',
        gas_unit_price: String(u.gas_unit_price ?? 100),
        expiration_timestamp_secs: String(this.timestamp / 1_000_000n + 600n),
        payload: { type: 'entry_function_payload', function: u.function ?? '0x1::aptos_account::transfer', type_arguments: [], arguments: [addr(2), '1'] },
        signature: { type: 'ed25519_signature', public_key: hashOf('pk', sender), signature: `${hashOf('sig', v)}${hashOf('sig2', v).slice(2)}` },
        replay_protection_nonce: orderless ? String(u.nonce) : null,
        events: [],
        timestamp: ts,
        type: 'user_transaction',
      }
      txns.push(user)
      v++
    }
    if (spec.epilogue !== false) {
      const epilogue: BlockEpilogueTransactionJson = {
        ...base('epilogue'),
        gas_used: '0',
        timestamp: ts,
        block_end_info: spec.epilogue ?? { block_gas_limit_reached: false, block_output_limit_reached: false, block_effective_block_gas_units: 500, block_approx_output_size: 3000 },
        type: 'block_epilogue_transaction',
      }
      txns.push(epilogue)
      v++
    }
    const block: BlockJson = {
      block_height: String(height),
      block_hash: hashOf('block', height),
      block_timestamp: ts,
      first_version: String(first),
      last_version: String(v - 1n),
      transactions: txns,
    }
    this.height++
    this.version = v
    this.timestamp += 250_000n
    return block
  }

  /** `count` blocks, each with the users `usersOf(i)` returns. */
  blocks(count: number, usersOf: (i: number) => UserSpec[] = () => []): BlockJson[] {
    return Array.from({ length: count }, (_, i) => this.block({ users: usersOf(i) }))
  }
}

/** A deep copy, for tampering with a block without touching the original. */
export function clone<T>(value: T): T {
  return structuredClone(value)
}

/**
 * Blocks of `chain`, one per entry of `prices`: three user txns whose cheapest pays the price
 * (full under `full_block_txns: 3`), or none for `null`.
 */
export function pricedChain(prices: readonly (number | bigint | null)[], chain = new ChainBuilder()): BlockJson[] {
  return prices.map((p, i) =>
    chain.block({ users: p === null ? [] : [{ sender: 10 + i, gas_unit_price: p }, { sender: 500 + i, gas_unit_price: BigInt(p) + 7n }, { sender: 900 + i, gas_unit_price: BigInt(p) + 50n }] }),
  )
}
