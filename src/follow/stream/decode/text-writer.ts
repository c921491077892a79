import { shortAddress } from '../convert/hex.js'
import { jsonText } from '../convert/json-text.js'
import { jsonValueEnd } from './json-span.js'
import type { WireReader } from './wire-reader.js'

/** The two lower-case hex digits of each byte value as one little-endian 16-bit unit: written two bytes at a time. */
const HEX = Uint16Array.from({ length: 256 }, (_, b) => {
  const digits = b.toString(16).padStart(2, '0')
  return digits.charCodeAt(0) | (digits.charCodeAt(1) << 8)
})

/** A constant piece of the node's JSON: its bytes, and their leading whole 32-bit words (little-endian), which `lit` stores one word at a time. */
export interface Literal {
  readonly bytes: Uint8Array
  readonly words: Uint32Array
}

/** `text` as a `Literal`, for the constant pieces of the node's JSON (all ASCII). */
export function ascii(text: string): Literal {
  const bytes = Buffer.from(text, 'latin1')
  const words = new Uint32Array(bytes.length >> 2)
  for (let i = 0; i < words.length; i++) words[i] = bytes.readUInt32LE(4 * i)
  return { bytes, words }
}

/**
 * JSON text written as UTF-8 straight into shared chunks, one transaction at a time, each handed
 * out as a view of its chunk (`finish`): no string is built for the whole text, so none is
 * flattened and encoded again. A chunk lives as long as any of its views, which suits texts
 * dropped together (a commit's transactions). A text that outgrows its chunk moves, with what
 * it has so far, to a new chunk at least twice its size.
 */
export class TextWriter {
  buf: Buffer
  /** `buf` as a DataView, for the stores wider than a byte. */
  #view: DataView
  pos = 0
  /** Where the text being written starts in `buf`. */
  #start = 0
  readonly #chunkBytes: number

  constructor(chunkBytes = 1 << 20) {
    this.#chunkBytes = chunkBytes
    this.buf = Buffer.allocUnsafe(chunkBytes)
    this.#view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength)
  }

  /** Makes room for `n` more bytes. */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return
    const held = this.pos - this.#start
    const next = Buffer.allocUnsafe(Math.max(this.#chunkBytes, 2 * (held + n)))
    this.buf.copy(next, 0, this.#start, this.pos)
    this.buf = next
    this.#view = new DataView(next.buffer, next.byteOffset, next.byteLength)
    this.#start = 0
    this.pos = held
  }

  /** The text written since the last `finish` or `abandon`. */
  finish(): Buffer {
    const out = this.buf.subarray(this.#start, this.pos)
    this.#start = this.pos
    return out
  }

  /** Where the text being written is now, as an offset into it: `reset` returns there even after the text moved chunk. */
  mark(): number {
    return this.pos - this.#start
  }

  /** The text written since `mark`, as a one-byte string (for ASCII text, its characters). */
  since(mark: number): string {
    return this.buf.toString('latin1', this.#start + mark, this.pos)
  }

  /** Drops what was written after `mark` (a part left to the decoder after all). */
  reset(mark: number): void {
    this.pos = this.#start + mark
  }

  /** Drops the text written since the last `finish`. */
  abandon(): void {
    this.pos = this.#start
  }

  /** A constant piece of the node's JSON. */
  lit(piece: Literal): void {
    const { bytes, words } = piece
    const n = bytes.length
    this.room(n)
    const view = this.#view
    let p = this.pos
    // Four bytes a store: the pieces are a third of the text, and mostly short, where a native copy costs more than its call.
    for (let i = 0; i < words.length; i++) {
      view.setUint32(p, words[i] as number, true)
      p += 4
    }
    const buf = this.buf
    for (let i = words.length << 2; i < n; i++) buf[p++] = bytes[i] as number
    this.pos = p
  }

  /** An ASCII string (digits, hex, a checked address) as is. */
  ascii(text: string): void {
    const n = text.length
    this.room(n)
    const buf = this.buf
    let p = this.pos
    // Short strings (u64 decimals, addresses) cost less copied here than through a call out.
    for (let i = 0; i < n; i++) buf[p++] = text.charCodeAt(i)
    this.pos = p
  }

  /** A non-negative integer below 2^53 in decimal, as `String` writes it, without making the string. */
  decimal(n: number): void {
    this.room(16)
    // Halves below 10^8 keep the digit arithmetic in 32-bit integers.
    if (n >= 1e8) {
      const high = Math.floor(n / 1e8)
      this.#digits(high, 1)
      this.#digits(n - high * 1e8, 8)
    } else this.#digits(n, 1)
  }

  /** A u64 as `uint64Value` reads it: a number's decimal digits, or the decimal string as is. */
  u64(value: number | string): void {
    if (typeof value === 'number') this.decimal(value)
    else this.ascii(value)
  }

  /** `n` (an integer in [0, 10^8)) in decimal, zeros before it up to `width` digits; room made by the caller. */
  #digits(n: number, width: number): void {
    let count = 1
    for (let t = n; t >= 10; t = (t / 10) | 0) count++
    if (count < width) count = width
    const buf = this.buf
    let p = this.pos + count
    this.pos = p
    for (let i = 0; i < count; i++) {
      const q = (n / 10) | 0
      buf[--p] = 48 + n - q * 10
      n = q
    }
  }

  /** Any string as UTF-8. */
  utf8(text: string): void {
    this.room(text.length * 3)
    this.pos += this.buf.write(text, this.pos, 'utf8')
  }

  /** The field bytes `r.input[start, stop)` as they are. */
  copy(r: WireReader, start: number, stop: number): void {
    const n = stop - start
    this.room(n)
    let p = this.pos
    // A long run is one native copy; a short one (an address, a type, a small JSON value) costs
    // less copied four bytes a load and store than the view a native copy needs.
    if (n > 256) {
      this.buf.set(r.input.subarray(start, stop), p)
      this.pos = p + n
      return
    }
    const from = r.view
    const to = this.#view
    let i = start
    for (; i + 4 <= stop; i += 4) {
      to.setUint32(p, from.getUint32(i, true), true)
      p += 4
    }
    const src = r.input
    const buf = this.buf
    for (; i < stop; i++) buf[p++] = src[i] as number
    this.pos = p
  }

  /** `"0x…"`: the bytes `src[start, stop)` as the node's lower-case hex, quoted. */
  hex(src: Uint8Array, start: number, stop: number): void {
    this.room(4 + 2 * (stop - start))
    const buf = this.buf
    let p = this.pos
    const view = this.#view
    buf[p++] = 34
    buf[p++] = 48
    buf[p++] = 120
    // Two bytes' four digits in one store: hashes and keys are most of the text.
    let i = start
    for (; i + 1 < stop; i += 2) {
      view.setUint32(p, (HEX[src[i] as number] as number) | ((HEX[src[i + 1] as number] as number) << 16), true)
      p += 4
    }
    if (i < stop) {
      view.setUint16(p, HEX[src[i] as number] as number, true)
      p += 2
    }
    buf[p++] = 34
    this.pos = p
  }

  /** A proto string field (its bytes `r.input[start, stop)`) as `JSON.stringify` writes it. */
  string(r: WireReader, start: number, stop: number): void {
    if (this.#plainField(r, start, start, stop) < 0) this.utf8(JSON.stringify(r.text(start, stop)))
  }

  /** `string`, returning the field's text: taken from the bytes just written (one flat copy) when they needed no escaping. */
  stringText(r: WireReader, start: number, stop: number): string {
    const at = this.#plainField(r, start, start, stop)
    if (at >= 0) return this.buf.toString('latin1', at, this.pos - 1)
    const text = r.text(start, stop)
    this.utf8(JSON.stringify(text))
    return text
  }

  /**
   * `JSON.stringify(shortAddress(text))` of a proto string field holding an address (its bytes
   * `r.input[start, stop)`): the leading zeros after `0x` dropped from the bytes themselves, no
   * string made, when they need no escaping; through `shortAddress` otherwise.
   */
  address(r: WireReader, start: number, stop: number): void {
    if (this.#plainField(r, start, stop, stop) < 0) this.quoted(shortAddress(r.text(start, stop)))
  }

  /** `address`, returning `shortAddress(text)`, taken from the bytes just written when they needed no escaping. */
  addressText(r: WireReader, start: number, stop: number): string {
    const at = this.#plainField(r, start, stop, stop)
    if (at >= 0) return this.buf.toString('latin1', at, this.pos - 1)
    const short = shortAddress(r.text(start, stop))
    this.quoted(short)
    return short
  }

  /**
   * `JSON.stringify(id)` of an entry function id `0x…::module::name` (a proto string field, its
   * bytes `r.input[start, stop)`) with its address written as `shortAddress` writes it, and that
   * id, as `address` and `addressText` do.
   */
  functionText(r: WireReader, start: number, stop: number): string {
    const src = r.input
    let cut = start
    while (cut < stop - 1 && !(src[cut] === 58 && src[cut + 1] === 58)) cut++
    if (cut >= stop - 1) cut = stop
    const at = this.#plainField(r, start, cut, stop)
    if (at >= 0) return this.buf.toString('latin1', at, this.pos - 1)
    const id = r.text(start, stop)
    const i = id.indexOf('::')
    const fn = i < 0 ? shortAddress(id) : `${shortAddress(id.slice(0, i))}${id.slice(i)}`
    this.quoted(fn)
    return fn
  }

  /**
   * `"…"` of the field bytes `r.input[start, stop)` when every byte is printable ASCII other than
   * `"` and `\` (as `JSON.stringify` leaves them), with `[start, cut)` written as `shortAddress` writes an
   * address (zeros after a leading `0x` dropped while one character is left after them): where
   * in `buf` the text between the quotes starts; −1, nothing written, otherwise.
   */
  #plainField(r: WireReader, start: number, cut: number, stop: number): number {
    const src = r.input
    for (let i = start; i < stop; i++) {
      const c = src[i] as number
      if (c < 0x20 || c > 0x7e || c === 34 || c === 92) return -1
    }
    this.room(stop - start + 2)
    const buf = this.buf
    buf[this.pos++] = 34
    const at = this.pos
    if (cut - start >= 2 && src[start] === 48 && src[start + 1] === 120) {
      let i = start + 2
      while (i < cut - 1 && src[i] === 48) i++
      buf[this.pos++] = 48
      buf[this.pos++] = 120
      this.copy(r, i, stop)
    } else this.copy(r, start, stop)
    buf[this.pos++] = 34
    return at
  }

  /** A string that needs no escaping (`isPlain`), quoted. */
  plain(text: string): void {
    this.room(text.length + 2)
    this.buf[this.pos++] = 34
    this.ascii(text)
    this.buf[this.pos++] = 34
  }

  /** `JSON.stringify(text)`. */
  quoted(text: string): void {
    if (isPlain(text)) this.plain(text)
    else this.utf8(JSON.stringify(text))
  }

  /** `jsonText` of a proto string field holding JSON text: its bytes as they are when they already are that text. */
  json(r: WireReader, start: number, stop: number): void {
    const src = r.input
    if (start < stop && jsonValueEnd(src, start, stop) === stop) this.copy(r, start, stop)
    else this.utf8(jsonText(r.text(start, stop)))
  }
}

/** A string `JSON.stringify` writes as it is between quotes: printable ASCII without `"` or `\`. */
export function isPlain(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20 || c > 0x7e || c === 34 || c === 92) return false
  }
  return true
}
