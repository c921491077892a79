/**
 * A lossless byte code for the JSON text of one transaction as `JSON.stringify` writes it, so the
 * memory store keeps transactions in about a third of their JSON's bytes and gives the very same
 * text back without building objects (bench/memory-store.ts).
 *
 * Canonical JSON text (what `JSON.stringify` of a parsed value writes: no whitespace, minimal
 * escapes) never holds a byte below 0x20, nor a byte from 0x80 up outside a string, so those
 * bytes are free to mean something else outside strings:
 *
 * - `0x01 n₀ n₁ bytes…`: the string `"0x…"` of `n` lowercase hex digits (8 ≤ n < 2^14, a
 *   two-byte varint), two per byte, an odd last one alone.
 * - `0x02 n d…`: the string of a canonical decimal up to 2^53 − 1 (`"1750000000"`) of `n` digits,
 *   two a byte (`10 · first + second`), an odd last one alone.
 * - `0x80 + i`: entry `i` of `DICTIONARY`: a key with its quotes and colon (`"gas_used":`), whose
 *   comma before it is dropped and put back when it follows a value, or a common string value
 *   with its quotes (`"user_transaction"`).
 * - any other byte: itself. A string matching none of these is copied whole, quotes and escapes
 *   included; the decoder follows quotes and backslashes to know when it is inside one.
 *
 * A record starting with `0x03` is the text itself after that byte: what `packText` keeps of a
 * text the packer does not take (a float, a key that is an array index, a lone surrogate). A
 * packed record that copies any byte from 0x80 up ends with an extra `0x04`.
 *
 * The packer is `txn-pack.ts`, the decoder `txn-unpack.ts`; this file holds what both read.
 */

/** Keys (with quotes and colon) and values (with quotes) of the node's transaction JSON. */
const WORDS = [
  ...[
    'version', 'hash', 'state_change_hash', 'event_root_hash', 'state_checkpoint_hash', 'gas_used', 'success', 'vm_status',
    'accumulator_root_hash', 'changes', 'sender', 'sequence_number', 'max_gas_amount', 'gas_unit_price', 'expiration_timestamp_secs',
    'payload', 'function', 'type_arguments', 'arguments', 'type', 'signature', 'public_key', 'replay_protection_nonce', 'events',
    'timestamp', 'id', 'epoch', 'round', 'guid', 'creation_number', 'account_address', 'data', 'failed_proposer_indices', 'height',
    'previous_block_votes_bitvec', 'proposer', 'time_microseconds', 'block_end_info', 'block_gas_limit_reached',
    'block_output_limit_reached', 'block_effective_block_gas_units', 'block_approx_output_size', 'address', 'state_key_hash',
    'handle', 'key', 'value', 'amount', 'coin', 'counter', 'addr', 'creation_num', 'failed_proposals', 'successful_proposals',
    'deposit_events', 'withdraw_events', 'frozen', 'authentication_key', 'write_set', 'public_keys', 'signatures',
    'threshold', 'bitmap', 'secondary_signers', 'secondary_signer_addresses', 'fee_payer_address', 'fee_payer_signer', 'code',
    'bytecode', 'abi', 'multisig_address', 'transaction_payload', 'name', 'store', 'owner',
  ].map((k) => `"${k}":`),
  ...[
    'Executed successfully', 'user_transaction', 'block_metadata_transaction', 'state_checkpoint_transaction',
    'block_epilogue_transaction', 'genesis_transaction', 'validator_transaction', 'entry_function_payload', 'script_payload',
    'multisig_payload', 'write_set_payload', 'ed25519_signature', 'multi_ed25519_signature', 'multi_agent_signature',
    'fee_payer_signature', 'single_sender', 'write_resource', 'delete_resource', 'write_table_item', 'delete_table_item',
    'write_module', 'delete_module', '0x1::aptos_coin::AptosCoin', '0x1::coin::CoinStore<0x1::aptos_coin::AptosCoin>',
    '0x1::block::NewBlockEvent', '0x1::aptos_account::transfer', '0x1::aptos_account::transfer_coins', '0x1::coin::transfer',
    '0x1::coin::DepositEvent', '0x1::coin::WithdrawEvent', '0x1::account::Account', '0x1::block::BlockResource',
    '0x1::stake::ValidatorPerformance', '0x1::timestamp::CurrentTimeMicroseconds', '0x1::transaction_fee::FeeStatement',
    '0x1::fungible_asset::Deposit', '0x1::fungible_asset::Withdraw', '0x1::fungible_asset::FungibleStore',
    '0x1::object::ObjectCore', '0x1::primary_fungible_store::transfer', '0x1', '0', '1',
    // The accumulator placeholder hash ("ACCUMULATOR_PLACEHOLDER_HASH" in hex, zero-padded): the
    // root the node writes for an empty accumulator, in many transactions. The packer looks it up
    // among the 64-digit hex strings, which take the hex token otherwise.
    `0x${Buffer.from('ACCUMULATOR_PLACEHOLDER_HASH', 'latin1').toString('hex').padEnd(64, '0')}`,
  ].map((v) => JSON.stringify(v)),
]

/** The dictionary, at most 128 entries (bytes 0x80..0xff), each unique. */
export const DICTIONARY: readonly string[] = [...new Set(WORDS)].slice(0, 128)
/** Each entry's bytes. */
export const ENTRIES = DICTIONARY.map((w) => new Uint8Array(Buffer.from(w, 'latin1')))
/** Each entry's name (a key without quotes and colon) or value (a string without quotes). */
export const ENTRY_TEXT = DICTIONARY.map((w) => (w.endsWith(':') ? w.slice(1, -2) : (JSON.parse(w) as string)))
/** Bytes of the longest entry: the most one token byte expands to. */
export const LONGEST_ENTRY = Math.max(...ENTRIES.map((w) => w.length))

/** Token of a hex string: `0x01 n₀ n₁` then the digits two per byte. */
export const HEX = 1
/** Token of a canonical decimal string: `0x02`, its digit count, then its digits two a byte. */
export const DECIMAL = 2
/** First byte of a record that is the text itself (`packText` of a text the packer refused). */
export const RAW = 3
/**
 * Last byte of a record that copies non-ASCII text: only then must the decoder follow strings
 * to tell their UTF-8 bytes from dictionary tokens, and decode UTF-8 (bench: a quarter faster).
 */
export const NON_ASCII = 4

/**
 * A cheap hash of the bytes `b[s, e)` of a quoted key with its colon or of a quoted value (at
 * least 3 bytes): their length and three of their bytes, so a scan need not hash every byte.
 */
function slotOf(b: Uint8Array, s: number, e: number): number {
  return ((e - s) * 31 + (b[s + 1] as number) * 7 + (b[s + 2] as number) * 3 + (b[e - 3] as number)) & (SLOTS - 1)
}

/** slotOf(entry bytes) → entry index + 1, open addressing. */
const SLOTS = 1024
const slotEntry = new Uint8Array(SLOTS)
ENTRIES.forEach((w, i) => {
  let slot = slotOf(w, 0, w.length)
  while (slotEntry[slot] !== 0) slot = (slot + 1) & (SLOTS - 1)
  slotEntry[slot] = i + 1
})

/** The dictionary entry equal to `b[s, e)` (a quoted key with its colon, or a quoted value), or -1. */
export function lookup(b: Uint8Array, s: number, e: number): number {
  for (let slot = slotOf(b, s, e); ; slot = (slot + 1) & (SLOTS - 1)) {
    const entry = (slotEntry[slot] as number) - 1
    if (entry < 0) return -1
    const w = ENTRIES[entry] as Uint8Array
    if (w.length !== e - s) continue
    let i = 0
    while (i < w.length && w[i] === b[s + i]) i++
    if (i === w.length) return entry
  }
}

/** Buffer's own slice decoders: `toString(encoding, …)` looks the encoding up on every call. */
interface Decoders {
  latin1Slice(start: number, end: number): string
  utf8Slice(start: number, end: number): string
}
/** `b.toString('latin1', s, e)` without the encoding lookup. */
export function latin1(b: Buffer, s: number, e: number): string {
  return (b as unknown as Decoders).latin1Slice(s, e)
}
/** `b.toString('utf8', s, e)` without the encoding lookup. */
export function utf8(b: Buffer, s: number, e: number): string {
  return (b as unknown as Decoders).utf8Slice(s, e)
}
