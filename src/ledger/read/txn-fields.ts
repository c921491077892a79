/**
 * The transaction fields the ledger reads (`parseBlockJson`, `checkBlock`), each exactly as
 * `JSON.parse` of the transaction's text has it; `undefined` when missing, which both read as
 * missing. What the block scanner (`scan-blocks.ts`) and the packer (`txn-pack.ts`) keep of a
 * transaction they read without parsing it.
 */
export interface TxnFields {
  type: string | undefined
  gas_unit_price: string | undefined
  gas_used: string | undefined
  epoch: string | undefined
  payload: { type: string | undefined; function: string | undefined } | undefined
  block_end_info: Record<string, boolean | number> | null | undefined
  version: string | undefined
  sender: string | undefined
  sequence_number: string | undefined
  replay_protection_nonce: string | null | undefined
}

/** A new `TxnFields` with every field missing (one object shape for every transaction read). */
export function emptyTxnFields(): TxnFields {
  return {
    type: undefined,
    gas_unit_price: undefined,
    gas_used: undefined,
    epoch: undefined,
    payload: undefined,
    block_end_info: undefined,
    version: undefined,
    sender: undefined,
    sequence_number: undefined,
    replay_protection_nonce: undefined,
  }
}
