import { nullable, object, ref, union, variant, type Schema } from './ref.js'

const U64 = ref('U64')
const HASH = ref('HashValue')
const HEX = ref('HexEncodedBytes')
const ADDRESS = ref('Address')
const arrayOf = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description === undefined ? {} : { description }) })

/** `BlockEndInfo` of a block epilogue (Aptos types/src/transaction/block_epilogue.rs). */
export const BLOCK_END_INFO: Schema = object(
  {
    block_gas_limit_reached: { type: 'boolean' },
    block_output_limit_reached: { type: 'boolean' },
    block_effective_block_gas_units: { type: 'integer', format: 'uint64', minimum: 0 },
    block_approx_output_size: { type: 'integer', format: 'uint64', minimum: 0 },
  },
  ['block_gas_limit_reached', 'block_output_limit_reached', 'block_effective_block_gas_units', 'block_approx_output_size'],
)

/** Fields every committed transaction starts with (the node's `TransactionInfo`), in its order. */
const INFO: Record<string, Schema> = {
  version: U64,
  hash: HASH,
  state_change_hash: HASH,
  event_root_hash: HASH,
  state_checkpoint_hash: nullable({ type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' }),
  gas_used: U64,
  success: { type: 'boolean', description: 'Whether the transaction was successful' },
  vm_status: { type: 'string', description: 'The VM status of the transaction' },
  accumulator_root_hash: HASH,
  changes: arrayOf(ref('WriteSetChange'), 'Final state of resources changed by the transaction'),
}
const INFO_REQUIRED = ['version', 'hash', 'state_change_hash', 'event_root_hash', 'gas_used', 'success', 'vm_status', 'accumulator_root_hash', 'changes']
const EVENTS = arrayOf(ref('Event'))

const STATE_KEY_HASH: Schema = { type: 'string' }

/**
 * The committed-transaction schemas the API serves, written from the node's OpenAPI document
 * (`Transaction_*`, `UserTransaction`, … in aptos-core api/doc/spec.yaml). Tagged unions are
 * flat variants with a `discriminator`. Deeply nested signature and payload variants this ledger
 * never holds are described by their tag only.
 */
export const TRANSACTION_SCHEMAS: Readonly<Record<string, Schema>> = {
  Transaction: union(
    'type',
    [
      'Transaction_UserTransaction',
      'Transaction_GenesisTransaction',
      'Transaction_BlockMetadataTransaction',
      'Transaction_StateCheckpointTransaction',
      'Transaction_BlockEpilogueTransaction',
      'Transaction_ValidatorTransaction',
    ],
    'A committed transaction, by its `type`',
  ),
  Transaction_UserTransaction: variant(
    'type',
    'user_transaction',
    {
      ...INFO,
      sender: ADDRESS,
      sequence_number: U64,
      max_gas_amount: U64,
      gas_unit_price: U64,
      expiration_timestamp_secs: U64,
      payload: ref('TransactionPayload'),
      signature: ref('TransactionSignature'),
      replay_protection_nonce: nullable({ type: 'string', format: 'uint64', pattern: '^(0|[1-9][0-9]{0,19})$' }),
      events: EVENTS,
      timestamp: U64,
    },
    [...INFO_REQUIRED, 'sender', 'sequence_number', 'max_gas_amount', 'gas_unit_price', 'expiration_timestamp_secs', 'payload', 'events', 'timestamp'],
  ),
  Transaction_GenesisTransaction: variant('type', 'genesis_transaction', { ...INFO, payload: ref('GenesisPayload'), events: EVENTS }, [...INFO_REQUIRED, 'payload', 'events']),
  Transaction_BlockMetadataTransaction: variant(
    'type',
    'block_metadata_transaction',
    {
      ...INFO,
      id: HASH,
      epoch: U64,
      round: U64,
      events: EVENTS,
      previous_block_votes_bitvec: arrayOf({ type: 'integer', format: 'uint8', minimum: 0, maximum: 255 }),
      proposer: ADDRESS,
      failed_proposer_indices: arrayOf({ type: 'integer', format: 'uint32', minimum: 0, maximum: 4294967295 }),
      timestamp: U64,
      block_metadata_extension: nullable({ type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['v0', 'v1', 'v2', 'v3'] } } }),
    },
    [...INFO_REQUIRED, 'id', 'epoch', 'round', 'events', 'previous_block_votes_bitvec', 'proposer', 'failed_proposer_indices', 'timestamp'],
  ),
  Transaction_StateCheckpointTransaction: variant('type', 'state_checkpoint_transaction', { ...INFO, timestamp: U64 }, [...INFO_REQUIRED, 'timestamp']),
  Transaction_BlockEpilogueTransaction: variant(
    'type',
    'block_epilogue_transaction',
    { ...INFO, timestamp: U64, block_end_info: nullable(BLOCK_END_INFO) },
    [...INFO_REQUIRED, 'timestamp'],
  ),
  Transaction_ValidatorTransaction: variant(
    'type',
    'validator_transaction',
    {
      ...INFO,
      validator_transaction_type: { type: 'string', enum: ['observed_jwk_update', 'dkg_result', 'chunky_d_k_g_result'] },
      events: EVENTS,
      timestamp: U64,
    },
    [...INFO_REQUIRED, 'validator_transaction_type', 'events', 'timestamp'],
  ),

  Event: object(
    {
      guid: object({ creation_number: U64, account_address: ADDRESS }, ['creation_number', 'account_address']),
      sequence_number: U64,
      type: ref('MoveType'),
      data: { description: 'The JSON representation of the event' },
    },
    ['guid', 'sequence_number', 'type', 'data'],
  ),

  TransactionPayload: union('type', [
    'TransactionPayload_EntryFunctionPayload',
    'TransactionPayload_ScriptPayload',
    'TransactionPayload_DeprecatedModuleBundlePayload',
    'TransactionPayload_MultisigPayload',
  ]),
  TransactionPayload_EntryFunctionPayload: variant(
    'type',
    'entry_function_payload',
    { function: ref('EntryFunctionId'), type_arguments: arrayOf(ref('MoveType')), arguments: arrayOf({}) },
    ['function', 'type_arguments', 'arguments'],
  ),
  TransactionPayload_ScriptPayload: variant(
    'type',
    'script_payload',
    { code: object({ bytecode: HEX, abi: { type: 'object' } }, ['bytecode']), type_arguments: arrayOf(ref('MoveType')), arguments: arrayOf({}) },
    ['code', 'type_arguments', 'arguments'],
  ),
  TransactionPayload_DeprecatedModuleBundlePayload: variant('type', 'module_bundle_payload', {}, []),
  TransactionPayload_MultisigPayload: variant(
    'type',
    'multisig_payload',
    { multisig_address: ADDRESS, transaction_payload: { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['entry_function_payload', 'script_payload'] } } } },
    ['multisig_address'],
  ),

  TransactionSignature: union('type', [
    'TransactionSignature_Ed25519Signature',
    'TransactionSignature_MultiEd25519Signature',
    'TransactionSignature_MultiAgentSignature',
    'TransactionSignature_FeePayerSignature',
    'TransactionSignature_AccountSignature',
    'TransactionSignature_NoAccountSignature',
  ]),
  TransactionSignature_Ed25519Signature: variant('type', 'ed25519_signature', { public_key: HEX, signature: HEX }, ['public_key', 'signature']),
  TransactionSignature_MultiEd25519Signature: variant(
    'type',
    'multi_ed25519_signature',
    { public_keys: arrayOf(HEX), signatures: arrayOf(HEX), threshold: { type: 'integer', format: 'uint8', minimum: 0, maximum: 255 }, bitmap: HEX },
    ['public_keys', 'signatures', 'threshold', 'bitmap'],
  ),
  TransactionSignature_MultiAgentSignature: variant(
    'type',
    'multi_agent_signature',
    { sender: ref('AccountSignature'), secondary_signer_addresses: arrayOf(ADDRESS), secondary_signers: arrayOf(ref('AccountSignature')) },
    ['sender', 'secondary_signer_addresses', 'secondary_signers'],
  ),
  TransactionSignature_FeePayerSignature: variant(
    'type',
    'fee_payer_signature',
    {
      sender: ref('AccountSignature'),
      secondary_signer_addresses: arrayOf(ADDRESS),
      secondary_signers: arrayOf(ref('AccountSignature')),
      fee_payer_address: ADDRESS,
      fee_payer_signer: ref('AccountSignature'),
    },
    ['sender', 'secondary_signer_addresses', 'secondary_signers', 'fee_payer_address', 'fee_payer_signer'],
  ),
  // The node's `single_sender` variant carries an AccountSignature's fields beside its own tag.
  TransactionSignature_AccountSignature: variant('type', 'single_sender', {}, []),
  TransactionSignature_NoAccountSignature: variant('type', 'no_account_signature', {}, []),
  AccountSignature: {
    type: 'object',
    required: ['type'],
    properties: {
      type: { type: 'string', enum: ['ed25519_signature', 'multi_ed25519_signature', 'single_key_signature', 'multi_key_signature', 'no_account_signature', 'abstract_signature'] },
    },
  },

  WriteSetChange: union('type', [
    'WriteSetChange_DeleteModule',
    'WriteSetChange_DeleteResource',
    'WriteSetChange_DeleteTableItem',
    'WriteSetChange_WriteModule',
    'WriteSetChange_WriteResource',
    'WriteSetChange_WriteTableItem',
  ]),
  WriteSetChange_DeleteModule: variant('type', 'delete_module', { address: ADDRESS, state_key_hash: STATE_KEY_HASH, module: { type: 'string' } }, ['address', 'state_key_hash', 'module']),
  WriteSetChange_DeleteResource: variant(
    'type',
    'delete_resource',
    { address: ADDRESS, state_key_hash: STATE_KEY_HASH, resource: ref('MoveStructTag') },
    ['address', 'state_key_hash', 'resource'],
  ),
  WriteSetChange_DeleteTableItem: variant(
    'type',
    'delete_table_item',
    { state_key_hash: STATE_KEY_HASH, handle: HEX, key: HEX, data: nullable(object({ key: {}, key_type: { type: 'string' } }, ['key', 'key_type'])) },
    ['state_key_hash', 'handle', 'key'],
  ),
  WriteSetChange_WriteModule: variant(
    'type',
    'write_module',
    { address: ADDRESS, state_key_hash: STATE_KEY_HASH, data: object({ bytecode: HEX, abi: { type: 'object' } }, ['bytecode']) },
    ['address', 'state_key_hash', 'data'],
  ),
  WriteSetChange_WriteResource: variant(
    'type',
    'write_resource',
    { address: ADDRESS, state_key_hash: STATE_KEY_HASH, data: object({ type: ref('MoveStructTag'), data: { type: 'object' } }, ['type', 'data']) },
    ['address', 'state_key_hash', 'data'],
  ),
  WriteSetChange_WriteTableItem: variant(
    'type',
    'write_table_item',
    {
      state_key_hash: STATE_KEY_HASH,
      handle: HEX,
      key: HEX,
      value: HEX,
      data: nullable(object({ key: {}, key_type: { type: 'string' }, value: {}, value_type: { type: 'string' } }, ['key', 'key_type', 'value', 'value_type'])),
    },
    ['state_key_hash', 'handle', 'key', 'value'],
  ),

  GenesisPayload: union('type', ['GenesisPayload_WriteSetPayload']),
  GenesisPayload_WriteSetPayload: variant('type', 'write_set_payload', { write_set: ref('WriteSet') }, ['write_set']),
  WriteSet: union('type', ['WriteSet_ScriptWriteSet', 'WriteSet_DirectWriteSet']),
  WriteSet_ScriptWriteSet: variant('type', 'script_write_set', { execute_as: ADDRESS, script: { type: 'object' } }, ['execute_as', 'script']),
  WriteSet_DirectWriteSet: variant('type', 'direct_write_set', { changes: arrayOf(ref('WriteSetChange')), events: EVENTS }, ['changes', 'events']),
}
