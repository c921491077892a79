import { isUtf8 } from 'node:buffer'
import { canonicalIntegerEnd, JsonReader, MAX_DEPTH, scanLiteral, stringifyEscapeEnd } from './json-bytes.js'

/** Objects with more keys than this are not checked for repeats (quadratic): reported not canonical. */
const MAX_KEYS = 64

/**
 * Reads JSON values in the form `JSON.stringify` writes them, validating as it goes: the one
 * place that knows that form. `end` is what the block scanner calls on the values it skips, so
 * that a transaction's bytes are walked once to both validate and check them; `isCanonicalJson`
 * is the same read of a whole range. It keeps the keys of the objects it is inside (per open
 * object, their byte ranges), allocated once and grown as needed.
 */
export class CanonicalReader {
  /** Per open container: 1 for an object, 2 for an array. */
  readonly #kind = new Uint8Array(MAX_DEPTH)
  /** Per open container: where its keys start in `#keyStart`/`#keyEnd` (objects only). */
  readonly #base = new Int32Array(MAX_DEPTH)
  #keyStart = new Int32Array(256)
  #keyEnd = new Int32Array(256)
  /** Keys held for the open objects. */
  #keys = 0

  /**
   * The position just past the JSON value at `p` in `r`'s line when that value is valid JSON
   * written exactly as `JSON.stringify(JSON.parse(text))` writes it, else -1: no whitespace
   * between tokens, strings escaped exactly as `JSON.stringify` escapes them (`\"`, `\\`,
   * `\b \f \n \r \t`, `\u00xx` for other control characters, nothing else), integers of at
   * most 15 digits without a leading zero or `-0`, no repeated key in an object, no key that
   * is an array index (V8 moves those first), objects of at most 64 keys, nesting of at most
   * `MAX_DEPTH`. UTF-8 is not checked here (see `isCanonicalJson`). A value it returns a
   * position for is one `JsonReader.skipValue` skips to the same position, so the scanner
   * takes it in place of that skip and falls back to the skip on -1.
   *
   * O(bytes), plus O(k²) key comparisons for an object of k ≤ 64 keys.
   */
  end(r: JsonReader, p: number): number {
    const b = r.bytes
    const kind = this.#kind
    let depth = 0
    this.#keys = 0
    for (;;) {
      // A value starts at p.
      const c = b[p] as number
      if (c === 34) p = canonicalStringEnd(r, p)
      else if (c === 123) {
        if (b[p + 1] === 125) p += 2
        else {
          if (depth === MAX_DEPTH) return -1
          kind[depth] = 1
          this.#base[depth++] = this.#keys
          p = this.#key(r, p + 1, depth)
          if (p < 0) return -1
          continue
        }
      } else if (c === 91) {
        if (b[p + 1] === 93) p += 2
        else {
          if (depth === MAX_DEPTH) return -1
          kind[depth++] = 2
          p++
          continue
        }
      } else if (c === 45 || (c >= 48 && c <= 57)) p = canonicalIntegerEnd(b, p)
      else p = scanLiteral(b, p)
      if (p < 0) return -1
      // After a value: a comma and the next one, or the end of containers.
      for (;;) {
        if (depth === 0) return p
        const d = b[p]
        const inObject = kind[depth - 1] === 1
        if (d === 44) {
          p++
          if (inObject) p = this.#key(r, p, depth)
          if (p < 0) return -1
          break
        }
        if (d !== (inObject ? 125 : 93)) return -1
        p++
        depth--
        if (inObject) this.#keys = this.#base[depth] as number
      }
    }
  }

  /**
   * A key and its colon at `p`, in the object `depth` − 1 (the innermost open one): returns the
   * position of its value, or -1 (a repeat, an index, not canonical).
   */
  #key(r: JsonReader, p: number, depth: number): number {
    const b = r.bytes
    if (b[p] !== 34) return -1
    const s = p + 1
    const e = canonicalStringEnd(r, p) - 1
    if (e < 0 || b[e + 1] !== 58) return -1
    const n = e - s
    const first = b[s] as number
    if (n > 0 && first >= 48 && first <= 57) {
      let digits = true
      for (let i = s + 1; i < e; i++) if (!((b[i] as number) >= 48 && (b[i] as number) <= 57)) digits = false
      // Array indices ("0", "17", up to 2^32 − 2) come first in V8's key order; other digit strings are refused too, to be safe.
      if (digits) return -1
    }
    const base = this.#base[depth - 1] as number
    const count = this.#keys
    if (count - base >= MAX_KEYS) return -1
    const starts = this.#keyStart
    const ends = this.#keyEnd
    for (let k = base; k < count; k++) {
      const ks = starts[k] as number
      if ((ends[k] as number) - ks !== n) continue
      let i = 0
      while (i < n && b[ks + i] === b[s + i]) i++
      if (i === n) return -1
    }
    if (count === starts.length) this.#grow()
    this.#keyStart[count] = s
    this.#keyEnd[count] = e
    this.#keys = count + 1
    return e + 2
  }

  /** Doubles the key store (kept for the reader's life: the next value reuses it). */
  #grow(): void {
    const starts = new Int32Array(this.#keyStart.length * 2)
    const ends = new Int32Array(starts.length)
    starts.set(this.#keyStart)
    ends.set(this.#keyEnd)
    this.#keyStart = starts
    this.#keyEnd = ends
  }
}

/** A string at `p` (its opening quote) escaped as `JSON.stringify` escapes: the position past it, or -1. */
function canonicalStringEnd(r: JsonReader, p: number): number {
  const b = r.bytes
  p++
  for (;;) {
    // Straight to the next quote, backslash or control byte (four bytes a step); bytes from
    // 0x80 up are left to the caller's UTF-8 check.
    p = r.stringStop(p)
    const d = b[p]
    if (d === 34) return p + 1
    // A raw control byte, or the end of the line.
    if (d !== 92) return -1
    p = stringifyEscapeEnd(b, p)
    if (p < 0) return -1
  }
}

/**
 * True only when `b[start, end)`, a valid JSON value, is byte for byte what
 * `JSON.stringify(JSON.parse(text))` writes for its UTF-8 text: `CanonicalReader.end` reads it
 * to exactly `end`, and it is valid UTF-8. Anything else, or anything it is unsure of, is
 * `false`: the caller then writes `JSON.stringify(JSON.parse(text))`, so being conservative
 * costs time, never bytes. Lets bulk ingest store a transaction's bytes as the line has them.
 *
 * `reader` reads `b` four bytes at a time: the block scanner's, when `b` is the line it scanned.
 *
 * Law (test/ledger/canonical-json.prop.test.ts): `true` implies the bytes equal that
 * re-serialization. O(bytes), plus O(k²) key comparisons for an object of k ≤ 64 keys.
 */
export function isCanonicalJson(b: Uint8Array, start: number, end: number, reader: JsonReader = new JsonReader(), canonical: CanonicalReader = new CanonicalReader()): boolean {
  return canonical.end(reader.at(b), start) === end && isUtf8(b.subarray(start, end))
}
