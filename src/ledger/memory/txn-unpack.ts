/**
 * Writing a transaction's JSON text back from its record (`txn-code.ts`), byte for byte, without
 * building objects: what the memory store answers the API with. O(bytes).
 */
import { DECIMAL, ENTRIES, HEX, latin1, LONGEST_ENTRY, NON_ASCII, RAW, utf8 } from './txn-code.js'

/** Largest scratch the fast decoder sizes for the worst case up front (longer records take the checked one). */
const FAST_SCRATCH = 4 << 20

const HEX_DIGITS = new Uint8Array(Buffer.from('0123456789abcdef', 'latin1'))
/** Byte → its two hex digits, low byte first. */
const HEX_PAIRS = new Uint16Array(256)
for (let v = 0; v < 256; v++) HEX_PAIRS[v] = (HEX_DIGITS[v >> 4] as number) | ((HEX_DIGITS[v & 15] as number) << 8)

/**
 * Writes the decimal digits of `v` (a safe integer ≥ 0) at `out[o]` and returns the position
 * past them: backwards from the end, since `String(v)` and a write would cost a string per number
 * (bench: a quarter of the time of a user transaction).
 */
function writeDecimal(out: Uint8Array, o: number, v: number): number {
  let n = 1
  for (let x = v; x >= 10; x = Math.floor(x / 10)) n++
  const end = o + n
  for (let k = end - 1; k >= o; k--) {
    const q = Math.floor(v / 10)
    out[k] = 48 + (v - q * 10)
    v = q
  }
  return end
}

/**
 * Writes the quoted hex string of a `HEX` token whose count starts at `src[i]` (past the `HEX`
 * byte) at `out[o]`; returns the position past it. The token's bytes from `i` are `hexLength`.
 */
function writeHex(src: Buffer, i: number, out: Uint8Array, o: number): number {
  const count = ((src[i] as number) & 127) | ((src[i + 1] as number) << 7)
  i += 2
  out[o++] = 34
  out[o++] = 48
  out[o++] = 120
  for (let k = count >> 1; k > 0; k--) {
    const pair = HEX_PAIRS[src[i++] as number] as number
    out[o++] = pair & 255
    out[o++] = pair >> 8
  }
  if ((count & 1) === 1) out[o++] = HEX_DIGITS[src[i] as number] as number
  out[o++] = 34
  return o
}

/** Bytes of a `HEX` token from its count at `src[i]`: the two count bytes, then a byte per two digits. */
function hexLength(src: Buffer, i: number): number {
  const count = ((src[i] as number) & 127) | ((src[i + 1] as number) << 7)
  return 2 + ((count + 1) >> 1)
}

/** The number of a `DECIMAL` token whose base-128 digits (low first, high bit = more) start at `src[i]`. */
function readDecimal(src: Buffer, i: number): number {
  let v = 0
  let scale = 1
  for (;;) {
    const x = src[i++] as number
    v += (x & 127) * scale
    if (x < 128) return v
    scale *= 128
  }
}

/**
 * The decoder of records: writes a transaction's JSON text back into its scratch buffer (grown
 * to the longest transaction, and kept) and decodes it. Its owner (a memory store) keeps one.
 */
export class TxnUnpacker {
  #scratch = Buffer.alloc(0)

  /**
   * The JSON text of the record `src[s, e)` (`TxnPacker.pack` or `packText`), byte for byte,
   * decoded from UTF-8. O(bytes).
   */
  json(src: Buffer, s: number, e: number): string {
    if (src[s] === RAW) return utf8(src, s + 1, e)
    if (src[e - 1] === NON_ASCII || (e - s) * (LONGEST_ENTRY + 1) > FAST_SCRATCH) return this.#checked(src, s, src[e - 1] === NON_ASCII ? e - 1 : e)
    // Every byte from 0x80 up is a dictionary token and the text is ASCII: no string to follow,
    // room for the worst case (every byte the longest entry) made once.
    let out = this.#scratch
    const need = (e - s) * (LONGEST_ENTRY + 1)
    if (need > out.length) this.#scratch = out = Buffer.allocUnsafe(Math.max(need, out.length * 2))
    let o = 0
    let i = s
    while (i < e) {
      const c = src[i++] as number
      if (c >= 128) {
        const w = ENTRIES[c - 128] as Uint8Array
        // A key token after a value had its comma dropped.
        if (w[w.length - 1] === 58 && out[o - 1] !== 123) out[o++] = 44
        for (let k = 0; k < w.length; k++) out[o++] = w[k] as number
      } else if (c > DECIMAL) out[o++] = c
      else if (c === HEX) {
        o = writeHex(src, i, out, o)
        i += hexLength(src, i)
      } else {
        out[o++] = 34
        o = writeDecimal(out, o, readDecimal(src, i))
        out[o++] = 34
        while ((src[i++] as number) >= 128);
      }
    }
    return latin1(out, 0, o)
  }

  /** `json` of any packed record `src[s, e)` (its `NON_ASCII` mark cut off): follows strings, checks room per token, decodes UTF-8. */
  #checked(src: Buffer, s: number, e: number): string {
    let out = this.#scratch
    let o = 0
    let inString = false
    let i = s
    while (i < e) {
      // Room for the next token: a dictionary entry, or a hex string of twice the bytes left.
      if (o + 2 * (e - i) + LONGEST_ENTRY + 4 > out.length) {
        const grown = Buffer.allocUnsafe(Math.max(out.length * 2, o + 2 * (e - i) + LONGEST_ENTRY + 4))
        out.copy(grown, 0, 0, o)
        this.#scratch = out = grown
      }
      const c = src[i++] as number
      if (inString) {
        out[o++] = c
        if (c === 92) out[o++] = src[i++] as number
        else if (c === 34) inString = false
      } else if (c === 34) {
        out[o++] = c
        inString = true
      } else if (c >= 128) {
        const w = ENTRIES[c - 128] as Uint8Array
        if (w[w.length - 1] === 58 && out[o - 1] !== 123) out[o++] = 44
        for (let k = 0; k < w.length; k++) out[o++] = w[k] as number
      } else if (c === HEX) {
        o = writeHex(src, i, out, o)
        i += hexLength(src, i)
      } else if (c === DECIMAL) {
        out[o++] = 34
        o = writeDecimal(out, o, readDecimal(src, i))
        out[o++] = 34
        while ((src[i++] as number) >= 128);
      } else out[o++] = c
    }
    return utf8(out, 0, o)
  }
}
