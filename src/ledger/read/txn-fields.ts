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

/**
 * `TxnFields` as a byte reader fills them, with what the reader proved of a field while reading
 * its bytes, so that the append rules (`checkBlock`) need not prove it again. Only a reader makes
 * one (`JSON.parse` never does), so a parsed transaction cannot claim a proof: the rules look for
 * one with `instanceof`. A proof is only ever a shortcut to the answer the full check gives.
 */
export class ReadTxnFields implements TxnFields {
  type: string | undefined = undefined
  gas_unit_price: string | undefined = undefined
  gas_used: string | undefined = undefined
  epoch: string | undefined = undefined
  payload: { type: string | undefined; function: string | undefined } | undefined = undefined
  block_end_info: Record<string, boolean | number> | null | undefined = undefined
  version: string | undefined = undefined
  sender: string | undefined = undefined
  sequence_number: string | undefined = undefined
  replay_protection_nonce: string | null | undefined = undefined
  /**
   * True when `sender` was read as a hex token: `0x` followed by 8 to 16,383 lowercase hex digits
   * only (at 66 characters, its own canonical address). False for anything else, hex or not.
   */
  senderIsLowerHex = false
  #versionValue = -1

  /**
   * The value of `version` when the reader read it as a canonical decimal of at most 2^53 − 1
   * (`readVersion`), which is then `parseU64(version)` and `String` of it; else -1. The append
   * rules compare it with the version they expect instead of writing that number out as text:
   * a new string per transaction, which V8's cache of number strings keeps alive long enough to
   * be copied out of the young generation.
   */
  get versionValue(): number {
    return this.#versionValue
  }

  /** Reads `version` as `text`, the canonical decimal of `value` (at most 2^53 − 1): the proof `versionValue` gives. */
  readVersion(text: string, value: number): void {
    this.version = text
    this.#versionValue = value
  }

  /** Every field missing again and no proof: what a reader that reuses the object starts each transaction from. */
  clear(): void {
    this.#versionValue = -1
    this.type = undefined
    this.gas_unit_price = undefined
    this.gas_used = undefined
    this.epoch = undefined
    this.payload = undefined
    this.block_end_info = undefined
    this.version = undefined
    this.sender = undefined
    this.sequence_number = undefined
    this.replay_protection_nonce = undefined
    this.senderIsLowerHex = false
  }
}

/** A new `TxnFields` with every field missing (one object shape for every transaction read). */
export function emptyTxnFields(): ReadTxnFields {
  return new ReadTxnFields()
}
