/**
 * Packing a transaction's JSON text into the byte code of `txn-code.ts`. The packer reads the
 * JSON once byte by byte and also checks that it is canonical, so a line of a chain file can be
 * packed straight from its bytes when `JSON.stringify(JSON.parse(slice))` would write those
 * bytes back (less whitespace); it also reads the fields the ledger checks. O(bytes).
 */
import { canonicalIntegerEnd, skipWs, stringifyEscapeEnd } from '../read/json-bytes.js'
import type { ReadTxnFields } from '../read/txn-fields.js'
import { dictionaryKeyAt, END_INFO, END_MEMBERS, endInfoOf, F_END_INFO, F_END_MEMBER, F_NONCE, F_PAYLOAD, F_SENDER, F_VERSION, FIELD_OF, NONE, PAYLOAD, putString, takesString, TXN } from './pack-keys.js'
import { decodeHexDigits } from './hex-digits.js'
import { DECIMAL, ENTRIES, ENTRY_TEXT, HEX, latin1, LONGEST_ENTRY, lookup, NON_ASCII, RAW, utf8 } from './txn-code.js'

/** Shortest hex string worth a token: below that it saves little. */
const MIN_HEX_DIGITS = 8
/** Deepest nesting packed; deeper texts are kept raw. */
const MAX_DEPTH = 256
/** Most keys outside the dictionary of one object checked for repeats; an object with more is kept raw. */
const MAX_KEYS = 64

/** First byte of the accumulator placeholder hash (`0x4143…`), the one hex value in the dictionary. */
const PLACEHOLDER_FIRST_BYTE = 0x41

/** Slots of the packer's cache of hex field values (a power of two): a few times the senders of a busy chain's span. */
const HEX_TEXT_SLOTS = 1 << 14

/**
 * The packer: reads a transaction's JSON once, byte by byte, and writes its record. Its state
 * per call (the open containers, the keys seen per object, where the record ended) and its
 * scratch buffer are its own, so each owner (a memory store, a line packer) keeps one.
 */
export class TxnPacker {
  /** Where the record written by the last `pack` ends in `out`. */
  end = 0
  /** Per open container: its opening byte, what its members are read for, where its keys' hashes start. */
  readonly #kinds = new Uint8Array(MAX_DEPTH)
  readonly #roles = new Uint8Array(MAX_DEPTH)
  readonly #keyBase = new Int32Array(MAX_DEPTH)
  /** Hashes of the keys outside the dictionary of the objects open, `#keyBase[d]` on for the object at nesting `d`. */
  readonly #keyHashes = new Int32Array(MAX_DEPTH * MAX_KEYS)
  #keyTop = 0
  /** 128 bits per open object: the dictionary keys it has. */
  readonly #seenEntries = new Int32Array(MAX_DEPTH * 4)
  /** Whether the record being packed copies a byte from 0x80 up (in a string): it then ends in `NON_ASCII`. */
  #nonAscii = false
  /** Dictionary entry of the key `#key` read last, or -1. */
  #lastEntry = -1
  /** Hex strings read into fields, by `#hexText`'s slot: the last one of each slot. */
  readonly #hexTexts: (string | undefined)[] = new Array<string | undefined>(HEX_TEXT_SLOTS).fill(undefined)
  /** Scratch of `packText`. */
  #scratch = Buffer.alloc(0)
  /** The buffer `pack` read last and a `DataView` of its bytes (keys are matched a word at a time). */
  #viewed: Uint8Array | null = null
  #view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0))

  /**
   * Packs the JSON object at `b[p]` (the opening brace) into `out` from `o`, and returns the
   * position in `b` just past it; `end` is where the record ends in `out`. Returns -1, with
   * `out` past `o` left undefined, when the bytes there are not a JSON object that `JSON.stringify`
   * of its `JSON.parse` would write back byte for byte apart from whitespace between tokens: an
   * escape `JSON.stringify` would not write, a number that is not an integer of up to 15 digits
   * (or is `-0`), a repeated key, a key that starts with a digit (an array index, which an object
   * puts first), a key with an escape or whitespace before its colon, nesting deeper than 256, an
   * object of more than 64 keys outside the dictionary, or invalid JSON. The bytes must be valid UTF-8 (`isUtf8`), which
   * this does not check.
   *
   * With `fields`, also reads the transaction fields the ledger checks into it; a read field whose
   * value is not of the kind the block scanner keeps (a string without escapes; `null` for the nonce
   * and the block end info; an object for the payload and the block end info; `true`, `false` or an
   * integer for the block end info's members) also gives -1, so that a caller can leave such text
   * to the full parser.
   *
   * The record is at most one byte longer than the text (the `0x04` mark), so `out` needs that
   * much room.
   */
  pack(b: Buffer, p: number, out: Uint8Array, o: number, fields: ReadTxnFields | null): number {
    if (b[p] !== 123) return -1
    if (this.#viewed !== b) {
      this.#viewed = b
      this.#view = new DataView(b.buffer, b.byteOffset, b.length)
    }
    const kinds = this.#kinds
    const roles = this.#roles
    const keyBase = this.#keyBase
    const seenEntries = this.#seenEntries
    this.#nonAscii = false
    let depth = 0
    this.#keyTop = 0
    /** Field id the value at `p` is read into, or -1. */
    let field = -1
    for (;;) {
      // A value starts at p (whitespace before it skipped).
      const c = b[p] as number
      if (c === 34) {
        p = this.#string(b, p, out, o, field, fields)
        if (p < 0) return -1
        o = this.end
      } else if (c === 123 || c === 91) {
        let role = NONE
        if (field >= 0) {
          if (c !== 123 || (field !== F_PAYLOAD && field !== F_END_INFO)) return -1
          const f = fields as ReadTxnFields
          if (field === F_PAYLOAD) {
            f.payload = { type: undefined, function: undefined }
            role = PAYLOAD
          } else {
            f.block_end_info = {}
            role = END_INFO
          }
        } else if (depth === 0 && fields !== null) role = TXN
        out[o++] = c
        p = skipWs(b, p + 1)
        const close = c + 2 // } and ] follow { and [ by two
        if (b[p] === close) {
          out[o++] = close
          p++
        } else {
          if (depth === MAX_DEPTH) return -1
          kinds[depth] = c
          roles[depth] = role
          keyBase[depth] = this.#keyTop
          seenEntries[depth << 2] = 0
          seenEntries[(depth << 2) | 1] = 0
          seenEntries[(depth << 2) | 2] = 0
          seenEntries[(depth << 2) | 3] = 0
          depth++
          field = -1
          if (c === 123) {
            p = this.#key(b, p, out, o, depth - 1, this.#keyTop)
            if (p < 0) return -1
            o = this.end
            if (role !== NONE && this.#lastEntry >= 0) field = (FIELD_OF[role] as Int8Array)[this.#lastEntry] as number
          }
          continue
        }
      } else if (c === 45 || (c >= 48 && c <= 57)) {
        // An integer of up to 15 digits, not -0: JSON.stringify writes its double back the same.
        const k = canonicalIntegerEnd(b, p)
        if (k < 0) return -1
        if (field >= 0) {
          if (field < F_END_MEMBER) return -1
          endInfoOf(fields)[END_MEMBERS[field - F_END_MEMBER] as string] = Number(latin1(b, p, k))
        }
        while (p < k) out[o++] = b[p++] as number
      } else {
        // true, false or null.
        const n =
          c === 116 && b[p + 1] === 114 && b[p + 2] === 117 && b[p + 3] === 101
            ? 4
            : c === 102 && b[p + 1] === 97 && b[p + 2] === 108 && b[p + 3] === 115 && b[p + 4] === 101
              ? 5
              : c === 110 && b[p + 1] === 117 && b[p + 2] === 108 && b[p + 3] === 108
                ? 4
                : 0
        if (n === 0) return -1
        if (field >= 0) {
          const f = fields as ReadTxnFields
          if (c === 110 && field === F_END_INFO) f.block_end_info = null
          else if (c === 110 && field === F_NONCE) f.replay_protection_nonce = null
          else if (c !== 110 && field >= F_END_MEMBER) endInfoOf(fields)[END_MEMBERS[field - F_END_MEMBER] as string] = c === 116
          else return -1
        }
        for (let k = 0; k < n; k++) out[o++] = b[p++] as number
      }
      // After a value: a comma and the next member, or the end of containers.
      for (;;) {
        if (depth === 0) {
          if (this.#nonAscii) out[o++] = NON_ASCII
          this.end = o
          return p
        }
        p = skipWs(b, p)
        const d = b[p]
        const top = kinds[depth - 1] as number
        if (d === 44) {
          p = skipWs(b, p + 1)
          // The comma is written here and taken back by packKey when the key becomes a token.
          out[o++] = 44
          field = -1
          if (top === 123) {
            p = this.#key(b, p, out, o, depth - 1, keyBase[depth - 1] as number)
            if (p < 0) return -1
            o = this.end
            const role = roles[depth - 1] as number
            if (role !== NONE && this.#lastEntry >= 0) field = (FIELD_OF[role] as Int8Array)[this.#lastEntry] as number
          }
          break
        }
        if (d !== top + 2) return -1
        out[o++] = d
        p++
        depth--
        this.#keyTop = keyBase[depth] as number
      }
    }
  }

  /**
   * The key at `b[p]` and its colon, written at `out[o]` (a comma just before it, if any, is
   * `out[o − 1]`), in the object at nesting `d` whose other keys' hashes are at
   * `#keyHashes[base, #keyTop)`; returns the position of its value (whitespace skipped), with
   * `end` past what was written, or -1 (a repeated key among others).
   */
  #key(b: Buffer, p: number, out: Uint8Array, o: number, d: number, base: number): number {
    if (b[p] !== 34) return -1
    const first = b[p + 1] as number
    if (first >= 48 && first <= 57) return -1
    // A dictionary key's bytes end with its closing quote and colon, so a match is the whole key,
    // as the scan below would have read it.
    const entry = dictionaryKeyAt(b, this.#view, p)
    let j = p + 1
    let end: number
    if (entry >= 0) end = p + (ENTRIES[entry] as Uint8Array).length
    else {
      for (;;) {
        const c = b[j] as number
        if (c === 34) break
        if (c === 92 || !(c >= 32)) return -1
        if (c >= 128) this.#nonAscii = true
        j++
      }
      if (b[j + 1] !== 58) return -1
      // Not a dictionary key (`dictionaryKeyAt` would have matched it), so entry stays -1.
      end = j + 2
    }
    this.#lastEntry = entry
    if (entry >= 0) {
      // A dictionary key is seen once per object: one bit of the object's mask.
      const seenEntries = this.#seenEntries
      const word = (d << 2) | (entry >> 5)
      const bit = 1 << (entry & 31)
      if (((seenEntries[word] as number) & bit) !== 0) return -1
      seenEntries[word] = (seenEntries[word] as number) | bit
      // A key token after a value stands for `,"key":`: the decoder puts the comma back.
      if (out[o - 1] === 44) o--
      out[o++] = 128 + entry
    } else {
      // Other keys by hash: equal hashes may be different keys, and keeping such a text raw costs only space.
      const keyHashes = this.#keyHashes
      if (this.#keyTop - base >= MAX_KEYS) return -1
      let h = 0
      for (let k = p + 1; k < j; k++) h = (Math.imul(h, 31) + (b[k] as number)) | 0
      for (let k = base; k < this.#keyTop; k++) if (keyHashes[k] === h) return -1
      keyHashes[this.#keyTop++] = h
      for (let k = p; k < end; k++) out[o++] = b[k] as number
    }
    this.end = o
    return skipWs(b, end)
  }

  /**
   * A string value at `b[p]`, written at `out[o]`: a hex or decimal token, a dictionary value or
   * copied whole; read into `field` of `fields` when `field >= 0`. Returns the position past it
   * (`end` past what was written), or -1 for an escape `JSON.stringify` would not write, a
   * raw control character, or a read field that takes no string or holds an escape.
   */
  #string(b: Buffer, p: number, out: Uint8Array, o: number, field: number, fields: ReadTxnFields | null): number {
    if (field >= 0 && !takesString(field)) return -1
    if (b[p + 1] === 48 && b[p + 2] === 120) {
      // Hex in one pass: pairs are packed as they are read, and the token is given up (the string
      // copied below) if a byte is not a lowercase hex digit before the closing quote.
      const k = decodeHexDigits(b, this.#view, p + 3, out, o + 3)
      const w = o + 3 + ((k - p - 2) >> 1)
      const count = k - p - 3
      if (b[k] === 34 && count >= MIN_HEX_DIGITS && count < 1 << 14) {
        // A hex value of the dictionary (the accumulator placeholder hash) is one byte instead of 35.
        if (count === 64 && out[o + 3] === PLACEHOLDER_FIRST_BYTE) {
          const entry = lookup(b, p, k + 1)
          if (entry >= 0) {
            if (field >= 0) {
              const f = fields as ReadTxnFields
              putString(f, field, ENTRY_TEXT[entry] as string)
              if (field === F_SENDER) f.senderIsLowerHex = true
            }
            out[o] = 128 + entry
            this.end = o + 1
            return k + 1
          }
        }
        out[o] = HEX
        out[o + 1] = (count & 127) | 128
        out[o + 2] = count >> 7
        this.end = w
        if (field >= 0) {
          const f = fields as ReadTxnFields
          putString(f, field, this.#hexText(b, p + 1, k, out, o + 3))
          // Every byte up to the closing quote was a lowercase hex digit (`decodeHexDigits`).
          if (field === F_SENDER) f.senderIsLowerHex = true
        }
        return k + 1
      }
    }
    const first = b[p + 1] as number
    if (first >= 48 && first <= 57) {
      // A canonical decimal up to 2^53 − 1, read before anything is copied (most strings that
      // start with a digit are one): up to 16 digits, no leading zero, the closing quote after.
      let v = first - 48
      let k = p + 2
      if (first !== 48) {
        for (; k < p + 17; k++) {
          const d = (b[k] as number) - 48
          if (!(d >= 0 && d <= 9)) break
          v = v * 10 + d
        }
      }
      // Past 2^53 the sum may have rounded, but never below 2^53, so this test is exact.
      if (b[k] === 34 && v <= Number.MAX_SAFE_INTEGER) {
        // A canonical decimal is its number's String (V8 caches those of small numbers): no slice of
        // the bytes. A version is met once, so its String would only fill V8's cache, which keeps
        // each such string alive past a young collection: it is sliced, with its value as the proof.
        if (field === F_VERSION) (fields as ReadTxnFields).readVersion(latin1(b, p + 1, k), v)
        else if (field >= 0) putString(fields as ReadTxnFields, field, String(v))
        // The digits two a byte (their value 0..99), an odd last one alone: the decoder writes a
        // pair of digits per table read, with no division.
        const n = k - p - 1
        out[o++] = DECIMAL
        out[o++] = n
        let j = p + 1
        for (const last = k - 1; j < last; j += 2) out[o++] = ((b[j] as number) - 48) * 10 + (b[j + 1] as number) - 48
        if (j < k) out[o++] = (b[j] as number) - 48
        this.end = o
        return k + 1
      }
    }
    // The string is copied as it is scanned; a token found at its end is written over the copy.
    let j = p + 1
    let w = o
    out[w++] = 34
    let escaped = false
    for (;;) {
      const c = b[j] as number
      if (c === 34) break
      if (c === 92) {
        // Only the escapes JSON.stringify writes, copied as they are.
        const e = stringifyEscapeEnd(b, j)
        if (e < 0) return -1
        while (j < e) out[w++] = b[j++] as number
        escaped = true
      } else if (!(c >= 32)) return -1
      else {
        if (c >= 128) this.#nonAscii = true
        out[w++] = c
        j++
      }
    }
    out[w++] = 34
    if (escaped) {
      if (field >= 0) return -1
    } else {
      const n = j - p - 1
      if (n + 2 <= LONGEST_ENTRY) {
        const entry = lookup(b, p, j + 1)
        if (entry >= 0) {
          if (field >= 0) putString(fields as ReadTxnFields, field, ENTRY_TEXT[entry] as string)
          out[o++] = 128 + entry
          this.end = o
          return j + 1
        }
      }
      if (field >= 0) putString(fields as ReadTxnFields, field, utf8(b, p + 1, j))
    }
    this.end = w
    return j + 1
  }

  /**
   * `latin1(b, s, e)` of a hex string read into a field (a sender, most often), whose digits were
   * decoded at `out[d…]`: the same string object as the last time those bytes were read when it
   * is still in `#hexTexts`. The ledger keys its accounts by sender, and a string met again
   * carries the hash a Map computed for it, where a fresh one of 66 characters would be hashed
   * and compared anew on each lookup; a chain has far fewer senders than transactions.
   */
  #hexText(b: Buffer, s: number, e: number, out: Uint8Array, d: number): string {
    // The first decoded bytes are as good as random for addresses and hashes: they pick the slot.
    const slot = ((out[d] as number) | ((out[d + 1] as number) << 8)) & (HEX_TEXT_SLOTS - 1)
    const known = this.#hexTexts[slot]
    if (known !== undefined && known.length === e - s) {
      let i = 0
      while (i < known.length && known.charCodeAt(i) === b[s + i]) i++
      if (i === known.length) return known
    }
    const text = latin1(b, s, e)
    this.#hexTexts[slot] = text
    return text
  }

  /**
   * The record of a transaction's JSON text as `JSON.stringify` wrote it: packed, or kept whole
   * after a `0x03` when the packer does not take it. A view of the packer's scratch buffer, valid
   * until its next call.
   */
  packText(text: string): Buffer {
    const bytes = Buffer.from(text, 'utf8')
    if (this.#scratch.length < bytes.length + 1) this.#scratch = Buffer.allocUnsafe(Math.max(this.#scratch.length * 2, bytes.length + 1))
    const scratch = this.#scratch
    if (this.pack(bytes, 0, scratch, 0, null) === bytes.length) return scratch.subarray(0, this.end)
    scratch[0] = RAW
    bytes.copy(scratch, 1)
    return scratch.subarray(0, bytes.length + 1)
  }
}
