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
 * The decoder of records: writes a transaction's JSON text back, as UTF-8 bytes, into its
 * output buffer (grown to what the longest page asked of it, and kept), from which it is
 * decoded (`json`) or copied out (`bytes`, `page`). Its owner (a memory store) keeps one.
 */
export class TxnUnpacker {
  #out: Buffer = Buffer.alloc(0)
  /** Buffers of pages given back (`release`), written next. */
  #spare: Buffer[] = []
  /** Buffers of pages handed out (`pageEnd`) and not given back. */
  readonly #handedOut = new WeakSet<ArrayBufferLike>()
  /** Where the page being written ends in `#out` (`pageStart`…`pageEnd`). */
  #pageEnd = 0

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
   * Starts the UTF-8 bytes of a JSON array of records: `[`, then each record `pageAdd` is given
   * (its text, after a `,` from the second on), then `]` and the copy `pageEnd` returns. One page
   * at a time per unpacker; `json` and `bytes` are not to be called in between.
   */
  pageStart(): void {
    this.#room(0, 1)
    this.#out[0] = 91
    this.#pageEnd = 1
  }

  /** Adds the text of the record `src[s, e)` to the page begun by `pageStart`. O(bytes). */
  pageAdd(src: Buffer, s: number, e: number): void {
    let o = this.#pageEnd
    if (o > 1) {
      o = this.#room(o, 1)
      this.#out[o++] = 44
    }
    this.#pageEnd = this.#write(src, s, e, o)
  }

  /**
   * The page begun by `pageStart`, closed: a view of the buffer it was written in, which the
   * unpacker hands over and no longer writes to (it writes on in a spare one, see `release`), so
   * the page costs no copy.
   */
  pageEnd(): Buffer {
    const o = this.#room(this.#pageEnd, 1)
    const out = this.#out
    out[o] = 93
    this.#out = this.#spare.pop() ?? Buffer.alloc(0)
    this.#handedOut.add(out.buffer)
    return out.subarray(0, o + 1)
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

  /** Makes room for `n` more bytes at `out[o]`, keeping `out[0, o)`; returns `o`. */
  #room(o: number, n: number): number {
    if (o + n > this.#out.length) {
      // allocUnsafeSlow: a buffer of its own, never a slice of Node's shared pool, since pages are handed out and given back whole.
      const grown = Buffer.allocUnsafeSlow(Math.max(o + n, this.#out.length * 2, MIN_OUT))
      this.#out.copy(grown, 0, 0, o)
      this.#out = grown
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
    return o
  }
}

/** `out[0, n)` copied into a buffer of its own, which a socket may hold while `out` is written again. */
function copyOut(out: Buffer, n: number): Buffer {
  const b = Buffer.allocUnsafe(n)
  out.copy(b, 0, 0, n)
  return b
}
