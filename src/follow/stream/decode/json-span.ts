/**
 * Whether a proto string field's JSON text can be copied as it is: the check of
 * `../convert/json-text.ts` on bytes, for ASCII only. A byte ≥ 0x80 anywhere sends the text
 * through `jsonText`, which handles every string (and the UTF-8 check) itself.
 */

import { isStringifiedControl } from '../convert/json-text.js'

/** Containers nest at most this deep in a JSON text copied as is; deeper ones go through `jsonText`. */
const MAX_DEPTH = 64

/** Objects with more keys than this go through `jsonText` (the repeat check is quadratic). */
const MAX_KEYS = 64

/**
 * End of the JSON value at `s[i]` when it is written exactly as `jsonText` would write it (ASCII,
 * within `MAX_DEPTH` and `MAX_KEYS`), else −1: `[i, end)` can then be copied as is.
 */
export function jsonValueEnd(s: Uint8Array, i: number, stop: number): number {
  return valueEnd(s, i, stop, 0)
}

function valueEnd(s: Uint8Array, i: number, stop: number, depth: number): number {
  if (i >= stop) return -1
  const c = s[i] as number
  if (c === 34) return stringEnd(s, i, stop)
  if (c === 123) return depth >= MAX_DEPTH ? -1 : objectEnd(s, i + 1, stop, depth + 1)
  if (c === 91) {
    if (depth >= MAX_DEPTH) return -1
    let p = i + 1
    if (s[p] === 93) return p + 1
    for (;;) {
      p = valueEnd(s, p, stop, depth + 1)
      if (p < 0 || p >= stop) return -1
      const d = s[p]
      if (d === 93) return p + 1
      if (d !== 44) return -1
      p++
    }
  }
  if (c === 116) return s[i + 1] === 114 && s[i + 2] === 117 && s[i + 3] === 101 && i + 4 <= stop ? i + 4 : -1
  if (c === 102) return s[i + 1] === 97 && s[i + 2] === 108 && s[i + 3] === 115 && s[i + 4] === 101 && i + 5 <= stop ? i + 5 : -1
  if (c === 110) return s[i + 1] === 117 && s[i + 2] === 108 && s[i + 3] === 108 && i + 4 <= stop ? i + 4 : -1
  if (c === 45 || (c >= 48 && c <= 57)) return integerEnd(s, i, stop)
  return -1
}

function objectEnd(s: Uint8Array, i: number, stop: number, depth: number): number {
  if (s[i] === 125 && i < stop) return i + 1
  // Key positions as [start, end) pairs: keys compare by their bytes, each string having one canonical escaping.
  const keys: number[] = []
  let p = i
  for (;;) {
    if (p >= stop || s[p] !== 34) return -1
    const k = stringEnd(s, p, stop)
    if (k < 0 || k >= stop || s[k] !== 58) return -1
    if (keys.length >= 2 * MAX_KEYS || isDigits(s, p + 1, k - 1) || repeats(s, keys, p + 1, k - 1)) return -1
    keys.push(p + 1, k - 1)
    p = valueEnd(s, k + 1, stop, depth)
    if (p < 0 || p >= stop) return -1
    const d = s[p]
    if (d === 125) return p + 1
    if (d !== 44) return -1
    p++
  }
}

function repeats(s: Uint8Array, keys: readonly number[], a: number, b: number): boolean {
  const n = b - a
  for (let k = 0; k < keys.length; k += 2) {
    const x = keys[k] as number
    if ((keys[k + 1] as number) - x !== n) continue
    let i = 0
    while (i < n && s[x + i] === s[a + i]) i++
    if (i === n) return true
  }
  return false
}

/** A key of digits only: V8 orders array-index keys first, so such objects go through `jsonText`. */
function isDigits(s: Uint8Array, a: number, b: number): boolean {
  if (a === b) return false
  for (let i = a; i < b; i++) {
    const c = s[i] as number
    if (c < 48 || c > 57) return false
  }
  return true
}

/** End of the string at `i` when `JSON.stringify` escapes it that way and it is ASCII, else −1. */
function stringEnd(s: Uint8Array, i: number, stop: number): number {
  let p = i + 1
  for (;;) {
    if (p >= stop) return -1
    const c = s[p] as number
    if (c === 34) return p + 1
    if (c < 0x20 || c >= 0x80) return -1
    if (c === 92) {
      const e = s[p + 1]
      if (e === 34 || e === 92 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) {
        p += 2
        continue
      }
      // V8 writes `\u00xx` (lower-case) only for a control character without a short escape.
      if (e !== 117 || s[p + 2] !== 48 || s[p + 3] !== 48 || p + 6 > stop) return -1
      if (!isStringifiedControl(s[p + 4] as number, s[p + 5] as number)) return -1
      p += 6
      continue
    }
    p++
  }
}

/** End of a safe integer written as V8 writes it (at most 15 digits, no leading zero, no `-0`), else −1. */
function integerEnd(s: Uint8Array, i: number, stop: number): number {
  let p = s[i] === 45 ? i + 1 : i
  if (p >= stop) return -1
  const first = s[p] as number
  if (first === 48) {
    if (p !== i) return -1
    p++
  } else {
    if (!(first >= 49 && first <= 57)) return -1
    const start = p
    while (p < stop && (s[p] as number) >= 48 && (s[p] as number) <= 57) p++
    if (p - start > 15) return -1
  }
  if (p >= stop) return p
  const c = s[p] as number
  return c === 46 || c === 101 || c === 69 || (c >= 48 && c <= 57) ? -1 : p
}
