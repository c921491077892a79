import type {
  BlockEpilogueTransactionJson,
  BlockJson,
  BlockMetadataTransactionJson,
  StateCheckpointTransactionJson,
  TransactionJson,
  UserTransactionJson,
} from '../ledger/store/types.js'
import { randomHex } from './hex.js'
import type { BlockSelection, PendingTxn } from './mempool.js'
import type { Rng } from './prng.js'

/** `u64::MAX`: the sequence number the node shows for an orderless transaction. */
export const ORDERLESS_SEQUENCE_NUMBER = '18446744073709551615'

/**
 * Aptos `ACCUMULATOR_PLACEHOLDER_HASH` (the bytes of "ACCUMULATOR_PLACEHOLDER_HASH", zero
 * padded): the event root of a transaction that emitted no events.
 */
export const EMPTY_EVENT_ROOT_HASH = '0x414343554d554c41544f525f504c414345484f4c4445525f4841534800000000'

const EXECUTED = 'Executed successfully'

/** How a block ends: with a block epilogue (current chains) or a state checkpoint (older ones). */
export type BlockEnding = 'block_epilogue' | 'state_checkpoint'

/** The consensus facts of one block. */
export interface BlockHeader {
  block_height: number
  epoch: number
  round: number
  timestamp_us: number
  first_version: number
  proposer: string
  failed_proposer_indices: number[]
  /** Votes on the previous block, one bit per validator, most significant bit first. */
  previous_block_votes_bitvec: number[]
  ending: BlockEnding
}

/**
 * Writes one block in the node's JSON: metadata, the selected user transactions in selection
 * order, then the epilogue (with the selection's end info) or a state checkpoint. Fields are in
 * the node's order (`TransactionInfo` prefix first, `type` last) so `JSON.stringify` gives the
 * bytes a node would. Hashes and signatures are random bytes from `bytes`.
 */
export function blockJson(header: BlockHeader, selection: BlockSelection, senders: readonly string[], keys: readonly string[], bytes: Rng): BlockJson {
  const ts = String(header.timestamp_us)
  let version = header.first_version
  const id = randomHex(bytes, 32)
  const height = String(header.block_height)
  const transactions: TransactionJson[] = []
  const metadata: BlockMetadataTransactionJson = {
    version: String(version++),
    hash: randomHex(bytes, 32),
    state_change_hash: randomHex(bytes, 32),
    event_root_hash: randomHex(bytes, 32),
    state_checkpoint_hash: null,
    gas_used: '0',
    success: true,
    vm_status: EXECUTED,
    accumulator_root_hash: randomHex(bytes, 32),
    changes: [],
    id,
    epoch: String(header.epoch),
    round: String(header.round),
    events: [
      {
        guid: { creation_number: '3', account_address: '0x1' },
        sequence_number: height,
        type: '0x1::block::NewBlockEvent',
        data: {
          epoch: String(header.epoch),
          failed_proposer_indices: header.failed_proposer_indices.map(String),
          hash: id,
          height,
          previous_block_votes_bitvec: bitvecHex(header.previous_block_votes_bitvec),
          proposer: header.proposer,
          round: String(header.round),
          time_microseconds: ts,
        },
      },
    ],
    previous_block_votes_bitvec: header.previous_block_votes_bitvec,
    proposer: header.proposer,
    failed_proposer_indices: header.failed_proposer_indices,
    timestamp: ts,
    type: 'block_metadata_transaction',
  }
  transactions.push(metadata)
  for (const t of selection.txns) transactions.push(userTransactionJson(t, String(version++), ts, senders, keys, bytes))
  const prefix = {
    version: String(version),
    hash: randomHex(bytes, 32),
    state_change_hash: randomHex(bytes, 32),
    event_root_hash: EMPTY_EVENT_ROOT_HASH,
    state_checkpoint_hash: randomHex(bytes, 32),
    gas_used: '0',
    success: true,
    vm_status: EXECUTED,
    accumulator_root_hash: randomHex(bytes, 32),
    changes: [],
    timestamp: ts,
  }
  if (header.ending === 'block_epilogue') {
    const epilogue: BlockEpilogueTransactionJson = {
      ...prefix,
      block_end_info: {
        block_gas_limit_reached: selection.block_gas_limit_reached,
        block_output_limit_reached: selection.block_output_limit_reached,
        block_effective_block_gas_units: selection.gas_used,
        block_approx_output_size: selection.output_bytes,
      },
      type: 'block_epilogue_transaction',
    }
    transactions.push(epilogue)
  } else {
    const checkpoint: StateCheckpointTransactionJson = { ...prefix, type: 'state_checkpoint_transaction' }
    transactions.push(checkpoint)
  }
  return {
    block_height: height,
    block_hash: id,
    block_timestamp: ts,
    first_version: String(header.first_version),
    last_version: String(version),
    transactions,
  }
}

function userTransactionJson(t: PendingTxn, version: string, ts: string, senders: readonly string[], keys: readonly string[], bytes: Rng): UserTransactionJson {
  return {
    version,
    hash: randomHex(bytes, 32),
    state_change_hash: randomHex(bytes, 32),
    event_root_hash: EMPTY_EVENT_ROOT_HASH,
    state_checkpoint_hash: null,
    gas_used: String(t.gas_used),
    success: true,
    vm_status: EXECUTED,
    accumulator_root_hash: randomHex(bytes, 32),
    changes: [],
    sender: senders[t.sender] as string,
    sequence_number: t.sequence_number === null ? ORDERLESS_SEQUENCE_NUMBER : String(t.sequence_number),
    max_gas_amount: String(t.max_gas_amount),
    gas_unit_price: String(t.gas_unit_price),
    expiration_timestamp_secs: String(t.expiration_timestamp_secs),
    payload: { function: t.function, type_arguments: t.type_arguments, arguments: t.arguments, type: 'entry_function_payload' },
    signature: { public_key: keys[t.sender] as string, signature: randomHex(bytes, 64), type: 'ed25519_signature' },
    replay_protection_nonce: t.replay_protection_nonce,
    events: [],
    timestamp: ts,
    type: 'user_transaction',
  }
}

function bitvecHex(bits: readonly number[]): string {
  return `0x${bits.map((b) => b.toString(16).padStart(2, '0')).join('')}`
}
