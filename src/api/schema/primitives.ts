import type { Schema } from './ref.js'

/** Scalar schemas shared by the node's documents (Aptos OpenAPI `U64`, `Address`, …). */
export const PRIMITIVES: Readonly<Record<string, Schema>> = {
  U64: {
    type: 'string',
    format: 'uint64',
    pattern: '^(0|[1-9][0-9]{0,19})$',
    description: 'A u64 as a decimal string, so that clients without native u64 parsing stay exact.',
    example: '32425224034',
  },
  Address: {
    type: 'string',
    format: 'hex',
    pattern: '^0x[0-9a-fA-F]{1,64}$',
    description: 'A 32-byte account address in hex with a 0x prefix; leading zeros may be stripped (0x1).',
    example: '0x1',
  },
  HashValue: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$', description: 'A 32-byte hash in hex with a 0x prefix.' },
  HexEncodedBytes: {
    type: 'string',
    format: 'hex',
    pattern: '^0x([0-9a-fA-F]{2})*$',
    description: 'Bytes in hex with a 0x prefix, two digits per byte; zeros are never trimmed.',
  },
  EntryFunctionId: { type: 'string', description: '`{address}::{module name}::{function name}`', example: '0x1::aptos_account::transfer' },
  MoveType: { type: 'string', description: 'A Move type tag, e.g. `u64`, `vector<u8>`, `0x1::aptos_coin::AptosCoin`.' },
  MoveStructTag: { type: 'string', pattern: '^0x[0-9a-zA-Z:_<>, ]+$', description: 'A Move struct tag, e.g. `0x1::account::Account`.' },
}
