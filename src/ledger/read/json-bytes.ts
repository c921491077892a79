/**
 * Byte-level JSON validation for the block scanner (`scan-blocks.ts`). Each function takes the
 * UTF-8 bytes of one line and a position, and returns the position just past what it read, or
 * -1 when the bytes there are not what `JSON.parse` accepts. Reading past the end of the line
 * gives `undefined`, which matches no byte, so the loops need no bounds checks: `b` must be a
 * view of exactly the line.
 *
 * Soundness is the contract: a line these functions accept is one `JSON.parse` accepts (after
 * UTF-8 decoding, which turns bad sequences into U+FFFD inside strings and cannot create or hide
 * an ASCII byte). They may refuse more (a nesting deeper than `MAX_DEPTH`), never less.
 */

/** Set by `scanString`: whether the string held an escape, so that its bytes are not its value. */
let hadEscape = false

/** Whether the string read by the last `scanString` held an escape. */
export function lastStringEscaped(): boolean {
  return hadEscape
}

/** Deepest nesting `skipValue` follows; deeper lines are refused (the full parser then reads them). */
export const MAX_DEPTH = 4096

/** Container stack of `skipValue`: 1 = object, 2 = array. Depth is bounded, so it is allocated once. */
const stack = new Uint8Array(MAX_DEPTH)

/**
 * Past JSON whitespace (space, tab, LF, CR). The first test settles a non-space byte (and the
 * end, `undefined`) at once; it made the scanner about 25% faster (bench/replay.ts).
 */
export function skipWs(b: Uint8Array, p: number): number {
  let c = b[p] as number
  while (c <= 32 && (c === 32 || c === 9 || c === 10 || c === 13)) c = b[++p] as number
  return p
}

function isHexDigit(c: number | undefined): boolean {
  return c !== undefined && ((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))
}

/**
 * The bytes `stringStop` last read, and a view of their buffer and their offset in it: set once
 * per line, since reading `.buffer` per string costs as much as the words save.
 */
let viewLine: Uint8Array | undefined
let view = new DataView(new ArrayBuffer(0))
let viewOffset = 0

/**
 * The first position from `p` in `b` of a byte a string cannot simply hold (a quote, a backslash
 * or a control byte below 0x20), or `b.length`. Four bytes per step (SWAR, unaligned
 * little-endian loads): a word `v` holds byte `x` iff `(v ^ x·0x01010101) - 0x01010101 & ~(…) &
 * 0x80808080` is non-zero, and a byte below 0x20 iff `v - 0x20202020 & ~v & 0x80808080` is; both
 * tests are exact for "some byte", and the matching word is then read byte by byte. Only words
 * wholly inside `b` are read. About half the cost of a byte loop on the node's block JSON, whose
 * bytes are mostly hex strings (bench/replay.ts).
 */
export function stringStop(b: Uint8Array, p: number): number {
  const n = b.length
  if (b !== viewLine) {
    viewLine = b
    viewOffset = b.byteOffset
    if (view.buffer !== b.buffer) view = new DataView(b.buffer as ArrayBuffer)
  }
  const v = view
  const off = viewOffset
  let a = off + p
  const last = off + n - 4
  while (a <= last) {
    const w = v.getInt32(a, true)
    const q = w ^ 0x22222222
    const s = w ^ 0x5c5c5c5c
    if (((((q - 0x01010101) & ~q) | ((s - 0x01010101) & ~s) | ((w - 0x20202020) & ~w)) & 0x80808080) !== 0) break
    a += 4
  }
  for (p = a - off; p < n; p++) {
    const c = b[p] as number
    if (c === 34 || c === 92 || c < 32) return p
  }
  return n
}

/**
 * A string starting at `p` (the opening quote): raw control characters are refused, escapes
 * must be JSON's (`\" \\ \/ \b \f \n \r \t \uXXXX`). Bytes from 0x80 up pass as they are.
 */
export function scanString(b: Uint8Array, p: number): number {
  let escaped = false
  let i = p + 1
  for (;;) {
    i = stringStop(b, i)
    const c = b[i]
    if (c === 34) {
      hadEscape = escaped
      return i + 1
    }
    if (c !== 92) return -1 // a control byte, or the end of the line
    const e = b[++i]
    if (e === 117) {
      if (!(isHexDigit(b[i + 1]) && isHexDigit(b[i + 2]) && isHexDigit(b[i + 3]) && isHexDigit(b[i + 4]))) return -1
      i += 4
    } else if (!(e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116)) return -1
    escaped = true
    i++
  }
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

/** A key and its colon at `p`: returns the position of the value (whitespace skipped). */
function scanKey(b: Uint8Array, p: number): number {
  if (b[p] !== 34) return -1
  p = scanString(b, p)
  if (p < 0) return -1
  p = skipWs(b, p)
  return b[p] === 58 ? skipWs(b, p + 1) : -1
}

/**
 * Any JSON value at `p` (whitespace before it already skipped), validated and skipped without
 * building anything. Iterative, so nesting costs no call stack. O(bytes).
 */
export function skipValue(b: Uint8Array, p: number): number {
  let depth = 0
  for (;;) {
    // A value starts at p.
    const c = b[p] as number
    if (c === 34) p = scanString(b, p)
    else if (c === 123 || c === 91) {
      p = skipWs(b, p + 1)
      if (b[p] === (c === 123 ? 125 : 93)) p++
      else {
        if (depth === MAX_DEPTH) return -1
        stack[depth++] = c === 123 ? 1 : 2
        if (c === 123) p = scanKey(b, p)
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
        if (inObject) p = scanKey(b, p)
        if (p < 0) return -1
        break
      }
      if (d !== (inObject ? 125 : 93)) return -1
      p++
      depth--
    }
  }
}
