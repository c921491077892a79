import { ERROR_CODES } from '../plumbing/error-map.js'
import { nullable, object, ref, type Schema } from './ref.js'
import { BLOCK_END_INFO } from './transaction.js'

const U64 = ref('U64')
const GAS = (description: string): Schema => ({ type: 'integer', format: 'uint64', minimum: 0, description })

/** Top-level response schemas, written from the node's OpenAPI document. */
export const RESPONSE_SCHEMAS: Readonly<Record<string, Schema>> = {
  GasEstimation: object(
    {
      deprioritized_gas_estimate: GAS('The deprioritized (low) estimate for the gas unit price'),
      gas_estimate: GAS('The current estimate for the gas unit price'),
      prioritized_gas_estimate: GAS('The prioritized (aggressive) estimate for the gas unit price'),
    },
    ['gas_estimate'],
    { description: 'Gas unit price estimates as JSON integers (exact for every u64)' },
  ),
  HealthCheckSuccess: object({ message: { type: 'string', description: 'Always `aptos-node:ok`, as the Aptos node says it' } }, ['message'], {
    description: 'Answer of a passed health check (GET /v1/-/healthy)',
  }),
  AptosError: object(
    {
      message: { type: 'string', description: 'A message describing the error' },
      error_code: ref('AptosErrorCode'),
      vm_error_code: GAS('A code providing VM error details when submitting transactions to the VM'),
    },
    ['message', 'error_code'],
    { description: 'The error object of every non-2xx response' },
  ),
  AptosErrorCode: { type: 'string', enum: [...ERROR_CODES] },
  RoleType: { type: 'string', enum: ['validator', 'full_node'] },
  IndexResponse: object(
    {
      chain_id: { type: 'integer', format: 'uint8', minimum: 0, maximum: 255 },
      epoch: U64,
      ledger_version: U64,
      oldest_ledger_version: U64,
      ledger_timestamp: U64,
      node_role: ref('RoleType'),
      oldest_block_height: U64,
      block_height: U64,
      git_hash: { type: 'string', description: 'Git hash of the build serving the API' },
    },
    ['chain_id', 'epoch', 'ledger_version', 'oldest_ledger_version', 'ledger_timestamp', 'node_role', 'oldest_block_height', 'block_height'],
    { description: 'Ledger information (GET /v1)' },
  ),
  Block: object(
    {
      block_height: U64,
      block_hash: ref('HashValue'),
      block_timestamp: U64,
      first_version: U64,
      last_version: U64,
      transactions: nullable({ type: 'array', items: ref('Transaction'), description: 'The block’s transactions in order; null unless requested' }),
    },
    ['block_height', 'block_hash', 'block_timestamp', 'first_version', 'last_version'],
    { description: 'A block with or without its transactions' },
  ),
  BlockEndInfo: BLOCK_END_INFO,
}
