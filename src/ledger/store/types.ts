/**
 * Wire types: the JSON an Aptos-style node speaks for committed transactions and blocks
 * (`GET /v1/blocks/by_height/{h}?with_transactions=true`), as in the node's OpenAPI schemas
 * (`Transaction_*`, `Block`). u64 values are decimal strings; hashes are `0x` + 64 hex digits.
 * Parsed once into the core's compact `BlockInput` by `parseBlockJson`.
 */

/** A u64 as the node writes it: a decimal string. */
export type U64String = string

export interface EntryFunctionPayload {
  type: 'entry_function_payload'
  /** `{address}::{module}::{function}` */
  function: string
  type_arguments: string[]
  arguments: unknown[]
}

/** Any payload; only entry-function payloads are interpreted by the engine. */
export type TransactionPayload = EntryFunctionPayload | { type: string; [k: string]: unknown }

export interface Ed25519Signature {
  type: 'ed25519_signature'
  public_key: string
  signature: string
}

export interface Event {
  guid: { creation_number: U64String; account_address: string }
  sequence_number: U64String
  type: string
  data: unknown
}

export interface WriteSetChange {
  type: string
  [k: string]: unknown
}

/** Fields every committed transaction carries (`TransactionInfo`), in the node's order. */
export interface TransactionInfoFields {
  version: U64String
  hash: string
  state_change_hash: string
  event_root_hash: string
  state_checkpoint_hash: string | null
  gas_used: U64String
  success: boolean
  vm_status: string
  accumulator_root_hash: string
  changes: WriteSetChange[]
}

export interface UserTransactionJson extends TransactionInfoFields {
  type: 'user_transaction'
  sender: string
  sequence_number: U64String
  max_gas_amount: U64String
  gas_unit_price: U64String
  expiration_timestamp_secs: U64String
  payload: TransactionPayload
  signature?: Ed25519Signature | { type: string; [k: string]: unknown }
  /** Present (non-null) only on orderless transactions. */
  replay_protection_nonce?: U64String | null
  events: Event[]
  timestamp: U64String
}

export interface BlockMetadataTransactionJson extends TransactionInfoFields {
  type: 'block_metadata_transaction'
  id: string
  epoch: U64String
  round: U64String
  events: Event[]
  previous_block_votes_bitvec: number[]
  proposer: string
  failed_proposer_indices: number[]
  timestamp: U64String
}

export interface StateCheckpointTransactionJson extends TransactionInfoFields {
  type: 'state_checkpoint_transaction'
  timestamp: U64String
}

/** `BlockEndInfo` as the node writes it: two booleans and two JSON integers. */
export interface BlockEndInfoJson {
  block_gas_limit_reached: boolean
  block_output_limit_reached: boolean
  block_effective_block_gas_units: number
  block_approx_output_size: number
}

export interface BlockEpilogueTransactionJson extends TransactionInfoFields {
  type: 'block_epilogue_transaction'
  timestamp: U64String
  block_end_info: BlockEndInfoJson | null
}

export interface GenesisTransactionJson extends TransactionInfoFields {
  type: 'genesis_transaction'
  payload: { type: 'write_set_payload'; write_set: unknown }
  events: Event[]
}

export type TransactionJson =
  | UserTransactionJson
  | BlockMetadataTransactionJson
  | StateCheckpointTransactionJson
  | BlockEpilogueTransactionJson
  | GenesisTransactionJson

/** A block with its transactions, one per line in a chain file (JSON Lines). */
export interface BlockJson {
  block_height: U64String
  block_hash: string
  block_timestamp: U64String
  first_version: U64String
  last_version: U64String
  transactions: TransactionJson[]
}
