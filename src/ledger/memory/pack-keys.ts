import { DICTIONARY, ENTRIES } from './txn-code.js'
import type { TxnFields } from '../read/txn-fields.js'

/**
 * What the packer (`txn-pack.ts`) knows of keys: the dictionary keys found by their first bytes,
 * and which of them are the transaction fields the ledger checks, by the role of the object
 * they are in.
 */

/** What a container's members are read for: nothing, the transaction's fields, its payload's, its block end info's. */
export const NONE = 0
export const TXN = 1
export const PAYLOAD = 2
export const END_INFO = 3

/** Field ids: members of `TxnFields`, `payload`'s two, `block_end_info`'s four. */
const F_STRING_FIELDS = ['type', 'gas_unit_price', 'gas_used', 'epoch', 'version', 'sender', 'sequence_number', 'replay_protection_nonce'] as const
export const F_NONCE = 7
/** The sender's field id, whose hex reading the packer vouches for (`ReadTxnFields.senderIsLowerHex`). */
export const F_SENDER = F_STRING_FIELDS.indexOf('sender')
/** The version's field id, whose value the packer reads with its text (`ReadTxnFields.readVersion`). */
export const F_VERSION = F_STRING_FIELDS.indexOf('version')
export const F_PAYLOAD = 8
export const F_END_INFO = 9
const F_PAYLOAD_TYPE = 10
const F_PAYLOAD_FUNCTION = 11
export const F_END_MEMBER = 12
export const END_MEMBERS = ['block_gas_limit_reached', 'block_output_limit_reached', 'block_effective_block_gas_units', 'block_approx_output_size']

/** Dictionary entry of a key → field id, per container role (-1: not read). */
export const FIELD_OF = [NONE, TXN, PAYLOAD, END_INFO].map(() => new Int8Array(128).fill(-1))
function keyEntry(name: string): number {
  const entry = DICTIONARY.indexOf(`"${name}":`)
  if (entry < 0) throw new Error(`txn-pack: key ${name} is not in the dictionary`)
  return entry
}
F_STRING_FIELDS.forEach((name, id) => ((FIELD_OF[TXN] as Int8Array)[keyEntry(name)] = id))
;(FIELD_OF[TXN] as Int8Array)[keyEntry('payload')] = F_PAYLOAD
;(FIELD_OF[TXN] as Int8Array)[keyEntry('block_end_info')] = F_END_INFO
;(FIELD_OF[PAYLOAD] as Int8Array)[keyEntry('type')] = F_PAYLOAD_TYPE
;(FIELD_OF[PAYLOAD] as Int8Array)[keyEntry('function')] = F_PAYLOAD_FUNCTION
END_MEMBERS.forEach((name, k) => ((FIELD_OF[END_INFO] as Int8Array)[keyEntry(name)] = F_END_MEMBER + k))

/**
 * Dictionary keys by the two bytes after their opening quote: `PREFIX_START[x]` and
 * `PREFIX_COUNT[x]` locate them in `PREFIX_KEYS`, so `packKey` matches a dictionary key (most
 * keys) in one pass over its bytes instead of scanning it and then looking it up.
 */
const PREFIX_START = new Uint16Array(1 << 16)
const PREFIX_COUNT = new Uint8Array(1 << 16)
const keyPrefix = (w: Uint8Array): number => ((w[1] as number) << 8) | (w[2] as number)
const PREFIX_KEYS = Int16Array.from(
  ENTRIES.map((w, i) => ({ w, i }))
    .filter(({ w }) => w[w.length - 1] === 58 && w.length >= 4)
    .sort((a, b) => keyPrefix(a.w) - keyPrefix(b.w))
    .map(({ i }) => i),
)
PREFIX_KEYS.forEach((entry, k) => {
  const x = keyPrefix(ENTRIES[entry] as Uint8Array)
  if (PREFIX_COUNT[x] === 0) PREFIX_START[x] = k
  PREFIX_COUNT[x] = (PREFIX_COUNT[x] as number) + 1
})

/**
 * Each dictionary entry's bytes from its fourth on (the first three are its quote and the prefix
 * matched above) as little-endian 32-bit words, zero-padded: `KEY_WORDS[KEY_AT[e] …]`,
 * `KEY_WORD_COUNT[e]` words, the last compared under `KEY_LAST_MASK[e]`. Four bytes per compare
 * instead of one: matching keys was the packer's hottest loop.
 */
const KEY_AT = new Uint16Array(ENTRIES.length)
const KEY_WORD_COUNT = new Uint8Array(ENTRIES.length)
const KEY_LAST_MASK = new Int32Array(ENTRIES.length)
const KEY_WORDS = (() => {
  const words: number[] = []
  ENTRIES.forEach((w, e) => {
    const tail = w.subarray(3)
    KEY_AT[e] = words.length
    KEY_WORD_COUNT[e] = (tail.length + 3) >> 2
    const rest = tail.length & 3
    KEY_LAST_MASK[e] = rest === 0 ? -1 : (1 << (8 * rest)) - 1
    for (let i = 0; i < tail.length; i += 4) words.push(((tail[i] ?? 0) | ((tail[i + 1] ?? 0) << 8) | ((tail[i + 2] ?? 0) << 16) | ((tail[i + 3] ?? 0) << 24)) | 0)
  })
  return Int32Array.from(words)
})()

/**
 * The dictionary key (with its quotes and colon) that `b` holds at `p` (its opening quote), or
 * -1; `view` is a `DataView` of `b`'s bytes.
 */
export function dictionaryKeyAt(b: Uint8Array, view: DataView<ArrayBufferLike>, p: number): number {
  const x = ((b[p + 1] as number) << 8) | (b[p + 2] as number)
  const count = PREFIX_COUNT[x] as number
  for (let k = PREFIX_START[x] as number, last = k + count; k < last; k++) {
    const entry = PREFIX_KEYS[k] as number
    const n = KEY_WORD_COUNT[entry] as number
    // Whole words are read, up to 3 bytes past the key: near the end of `b`, byte by byte.
    if (p + 3 + 4 * n > b.length) {
      const w = ENTRIES[entry] as Uint8Array
      let i = 3
      while (i < w.length && w[i] === b[p + i]) i++
      if (i === w.length) return entry
      continue
    }
    const at = KEY_AT[entry] as number
    let i = 0
    for (; i < n - 1; i++) if (view.getInt32(p + 3 + 4 * i, true) !== KEY_WORDS[at + i]) break
    if (i === n - 1 && (view.getInt32(p + 3 + 4 * i, true) & (KEY_LAST_MASK[entry] as number)) === KEY_WORDS[at + i]) return entry
  }
  return -1
}

/**
 * Reads `value` into field `field` of `fields`. A case per field, each a store of a named
 * property: one keyed store by the field's name would see every name at one site and go
 * megamorphic (a generic lookup per field of every transaction loaded). Field ids below
 * `F_NONCE` are positions in `F_STRING_FIELDS`.
 */
export function putString(fields: TxnFields, field: number, value: string): void {
  switch (field) {
    case 0:
      fields.type = value
      break
    case 1:
      fields.gas_unit_price = value
      break
    case 2:
      fields.gas_used = value
      break
    case 3:
      fields.epoch = value
      break
    case 4:
      fields.version = value
      break
    case 5:
      fields.sender = value
      break
    case 6:
      fields.sequence_number = value
      break
    case F_NONCE:
      fields.replay_protection_nonce = value
      break
    case F_PAYLOAD_TYPE:
      ;(fields.payload as { type: string | undefined }).type = value
      break
    default:
      ;(fields.payload as { function: string | undefined }).function = value
  }
}

/** Whether `field` takes a string value. */
export function takesString(field: number): boolean {
  return field < F_PAYLOAD || field === F_PAYLOAD_TYPE || field === F_PAYLOAD_FUNCTION
}

export function endInfoOf(fields: TxnFields | null): Record<string, boolean | number> {
  return (fields as TxnFields).block_end_info as Record<string, boolean | number>
}

