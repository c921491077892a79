import { isUtf8 } from 'node:buffer'
import { canonicalIntegerEnd, JsonReader, stringifyEscapeEnd } from './json-bytes.js'

/** Objects with more keys than this are not checked for repeats (quadratic): reported not canonical. */
const MAX_KEYS = 64

/**
 * True only when `b[start, end)`, a valid JSON value, is byte for byte what
 * `JSON.stringify(JSON.parse(text))` writes for its UTF-8 text: no whitespace between tokens,
 * strings escaped exactly as `JSON.stringify` escapes them (`\"`, `\\`, `\b \f \n \r \t`,
 * `\u00xx` for other control characters, nothing else), valid UTF-8, integers of at most 15
 * digits without a leading zero or `-0`, no repeated key in an object and no key that is an
 * array index (V8 moves those first). Anything else, or anything it is unsure of, is `false`:
 * the caller then writes `JSON.stringify(JSON.parse(text))`, so being conservative costs time,
 * never bytes. Lets bulk ingest store a transaction's bytes as the line has them.
 *
 * `reader` reads `b` four bytes at a time: the block scanner's, when `b` is the line it scanned.
 *
 * Law (test/ledger/canonical-json.prop.test.ts): `true` implies the bytes equal that
 * re-serialization. O(bytes), plus O(k²) key comparisons for an object of k ≤ 64 keys.
 */
export function isCanonicalJson(b: Uint8Array, start: number, end: number, reader: JsonReader = new JsonReader()): boolean {
  const r = reader.at(b)
  // Per open object: where its keys start (key i of the innermost object is keys[base + i]).
  const keyStarts: number[] = []
  const keyEnds: number[] = []
  const objectBase: number[] = []
  // Per open container: 1 for an object (the next string is a key), 0 for an array.
  const inObject: number[] = []
  let expectKey = false
  let p = start
  while (p < end) {
    const c = b[p] as number
    if (c === 34) {
      const s = p + 1
      p = s
      for (;;) {
        // Straight to the next quote, backslash or control byte (four bytes a step); bytes
        // from 0x80 up are left to the UTF-8 check at the end.
        p = r.stringStop(p)
        if (p >= end) return false
        const d = b[p] as number
        if (d === 34) break
        if (d === 92) {
          p = stringifyEscapeEnd(b, p)
          if (p < 0) return false
          continue
        }
        // A raw control byte.
        return false
      }
      if (expectKey) {
        if (!newKey(b, s, p, keyStarts, keyEnds, objectBase)) return false
        expectKey = false
      }
      p++
      continue
    }
    if (c === 123) {
      inObject.push(1)
      objectBase.push(keyStarts.length)
      expectKey = true
    } else if (c === 125) {
      inObject.pop()
      const base = objectBase.pop() as number
      keyStarts.length = base
      keyEnds.length = base
    } else if (c === 91) {
      inObject.push(0)
    } else if (c === 93) {
      inObject.pop()
    } else if (c === 44) {
      expectKey = inObject[inObject.length - 1] === 1
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      const q = canonicalIntegerEnd(b, p)
      if (q < 0 || q > end) return false
      p = q
      continue
    } else if (c !== 58 && c !== 116 && c !== 102 && c !== 110 && !(c >= 97 && c <= 122)) {
      // Whitespace, or anything a valid JSON value does not hold outside strings.
      return false
    }
    p++
  }
  return isUtf8(b.subarray(start, end))
}

/** Records the key `b[s, e)` in the innermost object; false when it repeats or is an array index. */
function newKey(b: Uint8Array, s: number, e: number, starts: number[], ends: number[], bases: number[]): boolean {
  const n = e - s
  const first = b[s] as number
  if (n > 0 && first >= 48 && first <= 57) {
    let digits = true
    for (let i = s + 1; i < e; i++) if (!((b[i] as number) >= 48 && (b[i] as number) <= 57)) digits = false
    // Array indices ("0", "17", up to 2^32 − 2) come first in V8's key order; other digit strings are refused too, to be safe.
    if (digits) return false
  }
  const base = bases[bases.length - 1] as number
  if (starts.length - base >= MAX_KEYS) return false
  for (let k = base; k < starts.length; k++) {
    const ks = starts[k] as number
    if ((ends[k] as number) - ks !== n) continue
    let i = 0
    while (i < n && b[ks + i] === b[s + i]) i++
    if (i === n) return false
  }
  starts.push(s)
  ends.push(e)
  return true
}
