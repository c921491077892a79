/**
 * The byte-level JSON reader: the one place that knows JSON's whitespace, strings and escapes,
 * numbers and literals, and how to skip any value. The block scanner (`block-scanner.ts`), the
 * packer (`memory/txn-pack.ts`, `memory/pack-line.ts`) and the canonical check
 * (`canonical-json.ts`) read through it. Each read takes a position in the bytes of one line
 * and returns the position just past what it read, or -1 when the bytes there are not what
 * `JSON.parse` accepts. Reading past the end of the line gives `undefined`, which matches no
 * byte, so the loops need no bounds checks: the bytes must be a view of exactly the line.
 *
 * Soundness is the contract: a line these reads accept is one `JSON.parse` accepts (after
 * UTF-8 decoding, which turns bad sequences into U+FFFD inside strings and cannot create or hide
 * an ASCII byte). They may refuse more (a nesting deeper than `MAX_DEPTH`), never less.
 */

/** Deepest nesting `skipValue` follows; deeper lines are refused (the full parser then reads them). */
export const MAX_DEPTH = 4096

const EMPTY = new Uint8Array(0)

/**
 * Past JSON whitespace (space, tab, LF, CR). The first test settles a non-space byte (and the
 * end, `undefined`) at once, which the scanner's inner loops rely on for speed.
 */
export function skipWs(b: Uint8Array, p: number): number {
  let c = b[p] as number
  while (c <= 32 && (c === 32 || c === 9 || c === 10 || c === 13)) c = b[++p] as number
  return p
}

function isHexDigit(c: number | undefined): boolean {
  return c !== undefined && ((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))
}

/** Escapes `JSON.stringify` writes as two characters: `\" \\ \b \f \n \r \t` (by the byte after the backslash). */
const SHORT_ESCAPE = new Uint8Array(256)
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1

/**
 * The escape at `b[j]` (its backslash) as `JSON.stringify` writes escapes: returns the position
 * past it, or -1 for any escape it would not write. It writes `\" \\ \b \f \n \r \t`, and
 * `\u00xx` (lowercase hex) only for the other control characters; `\/` and any other `\u` are
 * valid JSON that it never writes.
 */
export function stringifyEscapeEnd(b: Uint8Array, j: number): number {
  const e = b[j + 1] as number
  if (SHORT_ESCAPE[e] === 1) return j + 2
  if (e !== 117 || b[j + 2] !== 48 || b[j + 3] !== 48) return -1
  const hi = b[j + 4] as number
  const lo = b[j + 5] as number
  const loValue = lo >= 48 && lo <= 57 ? lo - 48 : lo >= 97 && lo <= 102 ? lo - 87 : -1
  if ((hi !== 48 && hi !== 49) || loValue < 0) return -1
  const code = (hi - 48) * 16 + loValue
  return code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? -1 : j + 6
}

/**
 * An integer as `JSON.stringify` writes a double it holds exactly: `-?(0|[1-9][0-9]{0,14})`, not
 * `-0`, not followed by a digit, a fraction or an exponent. Returns the position past it, or -1.
 */
export function canonicalIntegerEnd(b: Uint8Array, p: number): number {
  let k = b[p] === 45 ? p + 1 : p
  const d0 = b[k] as number
  if (d0 === 48) {
    if (k !== p) return -1
    k++
  } else if (d0 >= 49 && d0 <= 57) {
    const first = k
    do k++
    while ((b[k] as number) >= 48 && (b[k] as number) <= 57)
    if (k - first > 15) return -1
  } else return -1
  const next = b[k] as number
  return next === 46 || next === 101 || next === 69 || (next >= 48 && next <= 57) ? -1 : k
}

/** A number as JSON writes it: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. */
export function scanNumber(b: Uint8Array, p: number): number {
  let c = b[p] as number
  if (c === 45) c = b[++p] as number
  if (c === 48) c = b[++p] as number
  else if (c >= 49 && c <= 57) {
    do c = b[++p] as number
    while (c >= 48 && c <= 57)
  } else return -1
  if (c === 46) {
    c = b[++p] as number
    if (!(c >= 48 && c <= 57)) return -1
    do c = b[++p] as number
    while (c >= 48 && c <= 57)
  }
  if (c === 101 || c === 69) {
    c = b[++p] as number
    if (c === 43 || c === 45) c = b[++p] as number
    if (!(c >= 48 && c <= 57)) return -1
    do c = b[++p] as number
    while (c >= 48 && c <= 57)
  }
  return p
}

/** `true`, `false` or `null` at `p`. */
export function scanLiteral(b: Uint8Array, p: number): number {
  const c = b[p]
  if (c === 116) return b[p + 1] === 114 && b[p + 2] === 117 && b[p + 3] === 101 ? p + 4 : -1
  if (c === 102) return b[p + 1] === 97 && b[p + 2] === 108 && b[p + 3] === 115 && b[p + 4] === 101 ? p + 5 : -1
  if (c === 110) return b[p + 1] === 117 && b[p + 2] === 108 && b[p + 3] === 108 ? p + 4 : -1
  return -1
}

/** Finds a key's id by its bytes `b[s, s + n)` (-1 for an unknown key): a `KeySet` (`json-keys.ts`). */
export interface KeyLookup {
  find(b: Uint8Array, s: number, n: number): number
}

/**
 * A reader over the UTF-8 bytes of one line (`at`), with what its reads need besides the bytes:
 * a little-endian word view of them, the container stack of `skipValue`, and where the last
 * `scanText` string lies. The caller owns it and points it at each line in turn; nothing is
 * kept between calls anywhere else.
 */
export class JsonReader {
  /** The line being read. */
  bytes: Uint8Array = EMPTY
  /** `bytes` as a DataView (offset 0 is `bytes[0]`), for reading four bytes at a time. */
  view: DataView = new DataView(new ArrayBuffer(0))
  /** Where the string `scanText` read last starts (past its quote), and its length in bytes. */
  textStart = 0
  textLength = 0
  /** Container stack of `skipValue`: 1 = object, 2 = array. Depth is bounded, so it is allocated once. */
  readonly #stack = new Uint8Array(MAX_DEPTH)

  /** Points the reader at `b`, one line's bytes. O(1). */
  at(b: Uint8Array): this {
    if (b !== this.bytes) {
      this.bytes = b
      this.view = new DataView(b.buffer, b.byteOffset, b.length)
    }
    return this
  }

  /**
   * The first position from `p` of a byte a string cannot simply hold (a quote, a backslash or a
   * control byte below 0x20), or the line's length. Four bytes per step (SWAR, unaligned
   * little-endian loads): a word `v` holds byte `x` iff `(v ^ x·0x01010101) - 0x01010101 & ~(…) &
   * 0x80808080` is non-zero, and a byte below 0x20 iff `v - 0x20202020 & ~v & 0x80808080` is; both
   * tests are exact for "some byte", and the matching word is then read byte by byte. Only words
   * wholly inside the line are read. The node's block JSON is mostly hex strings, where this
   * costs about half a byte loop.
   */
  stringStop(p: number): number {
    const b = this.bytes
    const v = this.view
    const n = b.length
    const last = n - 4
    let a = p
    while (a <= last) {
      const w = v.getInt32(a, true)
      const q = w ^ 0x22222222
      const s = w ^ 0x5c5c5c5c
      if (((((q - 0x01010101) & ~q) | ((s - 0x01010101) & ~s) | ((w - 0x20202020) & ~w)) & 0x80808080) !== 0) break
      a += 4
    }
    for (p = a; p < n; p++) {
      const c = b[p] as number
      if (c === 34 || c === 92 || c < 32) return p
    }
    return n
  }

  /**
   * A string starting at `p` (the opening quote): raw control characters are refused, escapes
   * must be JSON's (`\" \\ \/ \b \f \n \r \t \uXXXX`). Bytes from 0x80 up pass as they are.
   */
  scanString(p: number): number {
    const b = this.bytes
    let i = p + 1
    for (;;) {
      i = this.stringStop(i)
      const c = b[i]
      if (c === 34) return i + 1
      if (c !== 92) return -1 // a control byte, or the end of the line
      const e = b[++i]
      if (e === 117) {
        if (!(isHexDigit(b[i + 1]) && isHexDigit(b[i + 2]) && isHexDigit(b[i + 3]) && isHexDigit(b[i + 4]))) return -1
        i += 4
      } else if (!(e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116)) return -1
      i++
    }
  }

  /**
   * A string without escapes at `p` (its opening quote): returns the position past it, or -1 for
   * anything else (an escape, a raw control character, not a string). Its bytes are then
   * `textStart`, `textLength`: its value, since nothing in it is escaped.
   */
  scanText(p: number): number {
    const b = this.bytes
    if (b[p] !== 34) return -1
    const s = p + 1
    const i = this.stringStop(s)
    if (b[i] !== 34) return -1
    this.textStart = s
    this.textLength = i - s
    return i + 1
  }

  /** A key and its colon at `p`: returns the position of the value (whitespace skipped). */
  #scanKey(p: number): number {
    const b = this.bytes
    if (b[p] !== 34) return -1
    p = this.scanString(p)
    if (p < 0) return -1
    p = skipWs(b, p)
    return b[p] === 58 ? skipWs(b, p + 1) : -1
  }

  /**
   * Any JSON value at `p` (whitespace before it already skipped), validated and skipped without
   * building anything. Iterative, so nesting costs no call stack. O(bytes).
   */
  skipValue(p: number): number {
    const b = this.bytes
    const stack = this.#stack
    let depth = 0
    for (;;) {
      // A value starts at p.
      const c = b[p] as number
      if (c === 34) p = this.scanString(p)
      else if (c === 123 || c === 91) {
        p = skipWs(b, p + 1)
        if (b[p] === (c === 123 ? 125 : 93)) p++
        else {
          if (depth === MAX_DEPTH) return -1
          stack[depth++] = c === 123 ? 1 : 2
          if (c === 123) p = this.#scanKey(p)
          if (p < 0) return -1
          continue
        }
      } else if (c === 45 || (c >= 48 && c <= 57)) p = scanNumber(b, p)
      else p = scanLiteral(b, p)
      if (p < 0) return -1
      // After a value: a comma and the next one, or the end of containers.
      for (;;) {
        if (depth === 0) return p
        p = skipWs(b, p)
        const d = b[p]
        const inObject = stack[depth - 1] === 1
        if (d === 44) {
          p = skipWs(b, p + 1)
          if (inObject) p = this.#scanKey(p)
          if (p < 0) return -1
          break
        }
        if (d !== (inObject ? 125 : 93)) return -1
        p++
        depth--
      }
    }
  }

  /**
   * The members of the object at `p` (whitespace before it skipped) whose keys are strings
   * without escapes: for each, `member(id, p)` with the key's id in `keys` (-1 for another key)
   * and the position of its value (whitespace skipped), which returns the position past the
   * value or -1. A repeated known key, an escaped key (it may spell a known one, as
   * `block\u005fheight` does) or bad JSON gives -1: `JSON.parse` keeps the last of repeated
   * keys, so such a line is left to the full parser. Returns the position past the object.
   */
  readObject(p: number, keys: KeyLookup, member: (id: number, p: number) => number): number {
    const b = this.bytes
    if (b[p] !== 123) return -1
    p = skipWs(b, p + 1)
    if (b[p] === 125) return p + 1
    let seen = 0
    for (;;) {
      p = this.scanText(p)
      if (p < 0) return -1
      const id = keys.find(b, this.textStart, this.textLength)
      if (id >= 0) {
        if ((seen & (1 << id)) !== 0) return -1
        seen |= 1 << id
      }
      p = skipWs(b, p)
      if (b[p] !== 58) return -1
      p = member(id, skipWs(b, p + 1))
      if (p < 0) return -1
      p = skipWs(b, p)
      if (b[p] === 125) return p + 1
      if (b[p] !== 44) return -1
      p = skipWs(b, p + 1)
    }
  }

  /**
   * `readObject` of the line's root object: also refuses anything but whitespace around it.
   * Returns whether the line was read whole.
   */
  readRoot(keys: KeyLookup, member: (id: number, p: number) => number): boolean {
    const b = this.bytes
    const p = this.readObject(skipWs(b, 0), keys, member)
    return p >= 0 && skipWs(b, p) === b.length
  }
}
