/**
 * Writing a transaction's JSON text back from its record (`txn-code.ts`), byte for byte, without
 * building objects: what the memory store answers the API with. O(bytes).
 */
import { DECIMAL, ENTRIES, HEX, latin1, LONGEST_ENTRY, NON_ASCII, RAW, utf8 } from './txn-code.js'

/** Page buffers an unpacker keeps for reuse (`release`): about as many as pages in flight at once. */
const SPARE_PAGES = 8

/** Smallest output buffer: a few transactions' texts, so a page does not grow it byte by byte. */
const MIN_OUT = 64 << 10

/** Largest scratch the fast decoder sizes for the worst case up front (longer records take the checked one). */
const FAST_SCRATCH = 4 << 20

const HEX_DIGITS = new Uint8Array(Buffer.from('0123456789abcdef', 'latin1'))
/** Byte → its two hex digits, low byte first: one 16-bit little-endian store writes both. */
const HEX_PAIRS = new Uint16Array(256)
for (let v = 0; v < 256; v++) HEX_PAIRS[v] = (HEX_DIGITS[v >> 4] as number) | ((HEX_DIGITS[v & 15] as number) << 8)

/**
 * Bytes a write may store past the end of what it writes: entries and hex digits go out in 4-byte
 * little-endian words (a quarter of the stores of one byte at a time), the last word's spare bytes
 * landing past the output's end, where the next token overwrites them. Room is made for them.
 */
const SLACK = 4

/**
 * Each dictionary entry as it is written, twice: `2i` alone, `2i + 1` after the comma a key
 * token puts back after a value. Their bytes lie in 4-byte words (`ENTRY_WORDS`, little-endian,
 * zero-padded), from word `ENTRY_AT[j]`, `ENTRY_LENGTH[j]` bytes long.
 */
const ENTRY_AT = new Uint16Array(2 * ENTRIES.length)
const ENTRY_LENGTH = new Uint8Array(2 * ENTRIES.length)
/** Whether entry `i` is a key (ends in its colon), whose comma the packer dropped. */
const ENTRY_IS_KEY = new Uint8Array(ENTRIES.length)
const ENTRY_WORDS = (() => {
  const forms = ENTRIES.flatMap((w, i) => {
    ENTRY_IS_KEY[i] = w[w.length - 1] === 58 ? 1 : 0
    return [w, ENTRY_IS_KEY[i] === 1 ? new Uint8Array([44, ...w]) : w]
  })
  const words: number[] = []
  forms.forEach((w, j) => {
    ENTRY_AT[j] = words.length
    ENTRY_LENGTH[j] = w.length
    for (let k = 0; k < w.length; k += 4) words.push((w[k] ?? 0) | ((w[k + 1] ?? 0) << 8) | ((w[k + 2] ?? 0) << 16) | ((w[k + 3] ?? 0) << 24))
  })
  return Int32Array.from(words)
})()

/**
 * Writes entry `c - 128` at `out[o]` (after a comma when it is a key and `out[o - 1]` ends a
 * value) and returns the position past it; up to `SLACK` bytes past it are overwritten.
 */
function writeEntry(view: DataView, out: Uint8Array, o: number, c: number): number {
  const i = c - 128
  const j = 2 * i + ((ENTRY_IS_KEY[i] as number) & (out[o - 1] !== 123 ? 1 : 0))
  const n = ENTRY_LENGTH[j] as number
  for (let w = ENTRY_AT[j] as number, k = 0; k < n; k += 4, w++) view.setInt32(o + k, ENTRY_WORDS[w] as number, true)
  return o + n
}

/** `00`…`99` as little-endian 16-bit words, the tens digit first: one store writes two digits. */
const DIGIT_PAIRS = new Uint16Array(100)
for (let v = 0; v < 100; v++) DIGIT_PAIRS[v] = (48 + Math.floor(v / 10)) | ((48 + (v % 10)) << 8)

/**
 * Writes the quoted decimal string of a `DECIMAL` token whose digit count is at `src[i]` (past the
 * `DECIMAL` byte) at `out[o]`; returns the position past it. The token's bytes from `i` are
 * `decimalLength`.
 */
function writeDecimal(src: Buffer, i: number, out: Uint8Array, view: DataView, o: number): number {
  const n = src[i++] as number
  out[o++] = 34
  for (let pairs = n >> 1; pairs > 0; pairs--, o += 2) view.setUint16(o, DIGIT_PAIRS[src[i++] as number] as number, true)
  if ((n & 1) === 1) out[o++] = 48 + (src[i] as number)
  out[o++] = 34
  return o
}

/** Bytes of a `DECIMAL` token from its digit count at `src[i]`: the count, then a byte per two digits. */
function decimalLength(src: Buffer, i: number): number {
  return 1 + (((src[i] as number) + 1) >> 1)
}

/**
 * Writes the quoted hex string of a `HEX` token whose count starts at `src[i]` (past the `HEX`
 * byte) at `out[o]`; returns the position past it. The token's bytes from `i` are `hexLength`.
 */
function writeHex(src: Buffer, srcView: DataView<ArrayBufferLike>, i: number, view: DataView, o: number): number {
  const count = ((src[i] as number) & 127) | ((src[i + 1] as number) << 7)
  i += 2
  // `"0x`, the fourth byte overwritten by the first digits.
  view.setUint32(o, 0x00_78_30_22, true)
  o += 3
  let pairs = count >> 1
  // Four bytes (eight digits) a source read while a whole word lies in the token.
  for (; pairs >= 4; pairs -= 4, o += 8, i += 4) {
    const x = srcView.getUint32(i, true)
    view.setUint32(o, (HEX_PAIRS[x & 255] as number) | ((HEX_PAIRS[(x >>> 8) & 255] as number) << 16), true)
    view.setUint32(o + 4, (HEX_PAIRS[(x >>> 16) & 255] as number) | ((HEX_PAIRS[x >>> 24] as number) << 16), true)
  }
  for (; pairs >= 2; pairs -= 2, o += 4, i += 2) view.setUint32(o, (HEX_PAIRS[src[i] as number] as number) | ((HEX_PAIRS[src[i + 1] as number] as number) << 16), true)
  if (pairs === 1) {
    view.setUint16(o, HEX_PAIRS[src[i++] as number] as number, true)
    o += 2
  }
  if ((count & 1) === 1) view.setUint8(o++, HEX_DIGITS[src[i] as number] as number)
  view.setUint8(o++, 34)
  return o
}

/** Bytes of a `HEX` token from its count at `src[i]`: the two count bytes, then a byte per two digits. */
function hexLength(src: Buffer, i: number): number {
  const count = ((src[i] as number) & 127) | ((src[i + 1] as number) << 7)
  return 2 + ((count + 1) >> 1)
}

/**
 * The decoder of records: writes a transaction's JSON text back, as UTF-8 bytes, into its
 * output buffer (grown to what the longest page asked of it, and kept), from which it is
 * decoded (`json`) or copied out (`bytes`, `page`). Its owner (a memory store) keeps one.
 */
export class TxnUnpacker {
  #out: Buffer = Buffer.alloc(0)
  /** `#out` as a DataView, for the word stores (`writeEntry`, `writeHex`). */
  #view = new DataView(this.#out.buffer, this.#out.byteOffset, 0)
  /** The source buffer read last and a DataView of it (`#srcView`). */
  #viewed: Buffer | null = null
  #viewOfSrc: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0))
  /** Buffers of pages given back (`release`), written next. */
  #spare: Buffer[] = []
  /** Buffers of pages handed out (`pageEnd`) and not given back. */
  readonly #handedOut = new WeakSet<ArrayBufferLike>()
  /** Where the page being written ends in `#out` (`pageStart`…`pageEnd`), and where its first record goes (past its `[`). */
  #pageEnd = 0
  #pageOpen = 0

  /**
   * The JSON text of the record `src[s, e)` (`TxnPacker.pack` or `packText`), byte for byte,
   * decoded from UTF-8. O(bytes).
   */
  json(src: Buffer, s: number, e: number): string {
    if (src[s] === RAW) return utf8(src, s + 1, e)
    const end = this.#write(src, s, e, 0)
    // Only a record marked NON_ASCII writes bytes from 0x80 up; the others are ASCII, which latin1 decodes faster.
    return src[e - 1] === NON_ASCII ? utf8(this.#out, 0, end) : latin1(this.#out, 0, end)
  }

  /** The UTF-8 bytes of `json(src, s, e)`, in a buffer of their own: what is written to a socket. O(bytes). */
  bytes(src: Buffer, s: number, e: number): Buffer {
    if (src[s] === RAW) return Buffer.from(src.subarray(s + 1, e))
    // #write may grow #out into a new buffer: read #out only after it has written.
    const end = this.#write(src, s, e, 0)
    return copyOut(this.#out, end)
  }

  /**
   * Starts the UTF-8 bytes of a JSON array of records: `head` (default none: a page is the array
   * alone; a block's body puts its header before it), `[`, then each record `pageAdd` is given
   * (its text, after a `,` from the second on), then `]`, `pageEnd`'s tail and the copy it
   * returns. One page at a time per unpacker; `json` and `bytes` are not to be called in between.
   */
  pageStart(head = ''): void {
    // A UTF-8 byte per char, or three for a char from U+0800 up (a surrogate pair: 4 bytes for 2 chars).
    let o = this.#room(0, 3 * head.length + 1)
    o += this.#out.write(head, 0, 'utf8')
    this.#out[o++] = 91
    this.#pageOpen = o
    this.#pageEnd = o
  }

  /** Adds the text of the record `src[s, e)` to the page begun by `pageStart`. O(bytes). */
  pageAdd(src: Buffer, s: number, e: number): void {
    let o = this.#pageEnd
    if (o > this.#pageOpen) {
      o = this.#room(o, 1)
      this.#out[o++] = 44
    }
    this.#pageEnd = this.#write(src, s, e, o)
  }

  /**
   * The page begun by `pageStart`, closed by `]` and `tail` (ASCII; default none): a view of the
   * buffer it was written in, which the unpacker hands over and no longer writes to (it writes on
   * in a spare one, see `release`), so the page costs no copy.
   */
  pageEnd(tail = ''): Buffer {
    let o = this.#room(this.#pageEnd, 1 + tail.length)
    const out = this.#out
    out[o++] = 93
    o += out.write(tail, o, 'latin1')
    this.#setOut(this.#spare.pop() ?? Buffer.alloc(0))
    this.#handedOut.add(out.buffer)
    return out.subarray(0, o)
  }

  /**
   * Gives back a page `pageEnd` returned, once nothing reads it any more (the API: once the
   * socket has taken it), so that its buffer is written again rather than a fresh one faulted in
   * for every page. At most `SPARE_PAGES` are kept; a page not given back is collected as any.
   */
  release(page: Buffer): void {
    const buffer = page.buffer
    // Only a buffer of its own that `pageEnd` handed out, once: never a slice of Node's shared pool.
    if (!this.#handedOut.delete(buffer) || this.#spare.length >= SPARE_PAGES) return
    this.#spare.push(Buffer.from(buffer, 0, buffer.byteLength))
  }

  /** A DataView of `src`'s bytes, kept for the buffer read last (records are read from a few arena chunks). */
  #srcView(src: Buffer): DataView<ArrayBufferLike> {
    if (this.#viewed !== src) {
      this.#viewed = src
      this.#viewOfSrc = new DataView(src.buffer, src.byteOffset, src.length)
    }
    return this.#viewOfSrc
  }

  #setOut(out: Buffer): void {
    this.#out = out
    this.#view = new DataView(out.buffer, out.byteOffset, out.length)
  }

  /** Makes room for `n` more bytes at `out[o]` and `SLACK` past them, keeping `out[0, o)`; returns `o`. */
  #room(o: number, n: number): number {
    n += SLACK
    if (o + n > this.#out.length) {
      // allocUnsafeSlow: a buffer of its own, never a slice of Node's shared pool, since pages are handed out and given back whole.
      const grown = Buffer.allocUnsafeSlow(Math.max(o + n, this.#out.length * 2, MIN_OUT))
      this.#out.copy(grown, 0, 0, o)
      this.#setOut(grown)
    }
    return o
  }

  /** Writes the UTF-8 bytes of the record `src[s, e)` at `out[o]`, keeping `out[0, o)`; returns the position past them. */
  #write(src: Buffer, s: number, e: number, o: number): number {
    if (src[s] === RAW) {
      o = this.#room(o, e - s - 1)
      return o + src.copy(this.#out, o, s + 1, e)
    }
    if (src[e - 1] === NON_ASCII || (e - s) * (LONGEST_ENTRY + 1) > FAST_SCRATCH) return this.#checked(src, s, src[e - 1] === NON_ASCII ? e - 1 : e, o)
    // Every byte from 0x80 up is a dictionary token and the text is ASCII: no string to follow,
    // room for the worst case (every byte the longest entry) made once.
    o = this.#room(o, (e - s) * (LONGEST_ENTRY + 1))
    const out = this.#out
    const view = this.#view
    const srcView = this.#srcView(src)
    let i = s
    while (i < e) {
      const c = src[i++] as number
      if (c >= 128) o = writeEntry(view, out, o, c)
      else if (c > DECIMAL) {
        // Text the packer copied (`null`, `true`, a string that took no token) goes four bytes a
        // store while the four from it are all copied bytes: each from RAW (3) to 0x7f, as their
        // high bits, and those of each byte plus 0x7d, tell without a carry between bytes.
        let k = i - 1
        for (; k + 4 <= e; k += 4) {
          const x = srcView.getInt32(k, true)
          if ((x & 0x80808080) !== 0 || ((x + 0x7d7d7d7d) & 0x80808080) !== 0x80808080 >> 0) break
          view.setInt32(o, x, true)
          o += 4
        }
        if (k === i - 1) out[o++] = c
        else i = k
      } else if (c === HEX) {
        o = writeHex(src, srcView, i, view, o)
        i += hexLength(src, i)
      } else {
        o = writeDecimal(src, i, out, view, o)
        i += decimalLength(src, i)
      }
    }
    return o
  }

  /** `#write` of any packed record `src[s, e)` (its `NON_ASCII` mark cut off): follows strings, checks room per token. */
  #checked(src: Buffer, s: number, e: number, o: number): number {
    let inString = false
    let i = s
    while (i < e) {
      // Room for the next token: a dictionary entry, or a hex string of twice the bytes left.
      o = this.#room(o, 2 * (e - i) + LONGEST_ENTRY + 4)
      const out = this.#out
      const c = src[i++] as number
      if (inString) {
        out[o++] = c
        if (c === 92) out[o++] = src[i++] as number
        else if (c === 34) inString = false
      } else if (c === 34) {
        out[o++] = c
        inString = true
      } else if (c >= 128) o = writeEntry(this.#view, out, o, c)
      else if (c === HEX) {
        o = writeHex(src, this.#srcView(src), i, this.#view, o)
        i += hexLength(src, i)
      } else if (c === DECIMAL) {
        o = writeDecimal(src, i, out, this.#view, o)
        i += decimalLength(src, i)
      } else out[o++] = c
    }
    return o
  }
}

/** `out[0, n)` copied into a buffer of its own, which a socket may hold while `out` is written again. */
function copyOut(out: Buffer, n: number): Buffer {
  const b = Buffer.allocUnsafe(n)
  out.copy(b, 0, 0, n)
  return b
}
