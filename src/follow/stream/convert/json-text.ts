import { jsonValue } from './payload.js'

/** Objects with more keys than this are not checked for repeats (quadratic): the text is re-serialized. */
const MAX_KEYS = 64

/** Containers nest at most this deep before the text is left to `JSON.parse`. */
const MAX_DEPTH = 64

/**
 * `JSON.stringify(jsonValue(text))`: the JSON text the node writes for a value the stream sends
 * as JSON text (event data, resource data, arguments), without parsing and re-serializing it
 * when `text` already is that text, as the stream's compact serde output nearly always is.
 *
 * Law (test/follow/stream/json-text.prop.test.ts): equal to `JSON.stringify(jsonValue(text))`
 * for every string. O(length), plus O(k²) key comparisons per object of k ≤ 64 keys.
 */
export function jsonText(text: string): string {
  return valueEnd(text, 0, 0) === text.length ? text : JSON.stringify(jsonValue(text))
}

/**
 * End of the JSON value at `i` when it is written exactly as `JSON.stringify(JSON.parse(…))`
 * writes it (no whitespace; strings escaped as V8 escapes them; integers of at most 15 digits,
 * no leading zero, no `-0`; no repeated or array-index key, which V8 would drop or move first),
 * else −1. Anything it is unsure of is −1, which costs a re-serialization, never a byte.
 */
function valueEnd(s: string, i: number, depth: number): number {
  const c = s.charCodeAt(i)
  if (c === 34) return stringEnd(s, i)
  if (c === 123) return depth >= MAX_DEPTH ? -1 : objectEnd(s, i + 1, depth + 1)
  if (c === 91) {
    if (depth >= MAX_DEPTH) return -1
    let p = i + 1
    if (s.charCodeAt(p) === 93) return p + 1
    for (;;) {
      p = valueEnd(s, p, depth + 1)
      if (p < 0) return -1
      const d = s.charCodeAt(p)
      if (d === 93) return p + 1
      if (d !== 44) return -1
      p++
    }
  }
  if (c === 116) return s.startsWith('true', i) ? i + 4 : -1
  if (c === 102) return s.startsWith('false', i) ? i + 5 : -1
  if (c === 110) return s.startsWith('null', i) ? i + 4 : -1
  if (c === 45 || (c >= 48 && c <= 57)) return integerEnd(s, i)
  return -1
}

function objectEnd(s: string, i: number, depth: number): number {
  if (s.charCodeAt(i) === 125) return i + 1
  const keys: string[] = []
  let p = i
  for (;;) {
    if (s.charCodeAt(p) !== 34) return -1
    const k = stringEnd(s, p)
    if (k < 0 || s.charCodeAt(k) !== 58) return -1
    // Keys compare by their escaped text: each string has one canonical escaping.
    const key = s.slice(p + 1, k - 1)
    if (isDigits(key) || keys.length >= MAX_KEYS || keys.includes(key)) return -1
    keys.push(key)
    p = valueEnd(s, k + 1, depth)
    if (p < 0) return -1
    const d = s.charCodeAt(p)
    if (d === 125) return p + 1
    if (d !== 44) return -1
    p++
  }
}

/** A key of digits only: V8 orders array-index keys first, so such objects are re-serialized. */
function isDigits(key: string): boolean {
  if (key.length === 0) return false
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return true
}

/**
 * Whether the last two digits `h`, `l` (character codes) of a `\u00hl` escape are as
 * `JSON.stringify` writes them: lower-case hex of a control character (below 0x20) that has no
 * short escape (`\b`, `\t`, `\n`, `\f`, `\r`).
 */
export function isStringifiedControl(h: number, l: number): boolean {
  if (h !== 48 && h !== 49) return false
  const low = l >= 48 && l <= 57 ? l - 48 : l >= 97 && l <= 102 ? l - 87 : -1
  if (low < 0) return false
  const code = (h - 48) * 16 + low
  return code !== 8 && code !== 9 && code !== 10 && code !== 12 && code !== 13
}

/** End of the string at `i` (its opening quote) when `JSON.stringify` escapes it that way, else −1. */
function stringEnd(s: string, i: number): number {
  let p = i + 1
  for (;;) {
    if (p >= s.length) return -1
    const c = s.charCodeAt(p)
    if (c === 34) return p + 1
    if (c < 0x20) return -1
    if (c === 92) {
      const e = s.charCodeAt(p + 1)
      if (e === 34 || e === 92 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) {
        p += 2
        continue
      }
      // V8 writes `\u00xx` (lower-case) only for a control character without a short escape.
      if (e !== 117 || s.charCodeAt(p + 2) !== 48 || s.charCodeAt(p + 3) !== 48) return -1
      if (!isStringifiedControl(s.charCodeAt(p + 4), s.charCodeAt(p + 5))) return -1
      p += 6
      continue
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      // A surrogate pair is written as it is; a lone surrogate would be escaped.
      const next = s.charCodeAt(p + 1)
      if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return -1
      p += 2
      continue
    }
    p++
  }
}

/** End of a safe integer written as V8 writes it (at most 15 digits, no leading zero, no `-0`), else −1. */
function integerEnd(s: string, i: number): number {
  let p = s.charCodeAt(i) === 45 ? i + 1 : i
  const first = s.charCodeAt(p)
  if (first === 48) {
    if (p !== i) return -1
    p++
  } else {
    if (!(first >= 49 && first <= 57)) return -1
    const start = p
    while (p < s.length && s.charCodeAt(p) >= 48 && s.charCodeAt(p) <= 57) p++
    if (p - start > 15) return -1
  }
  const c = s.charCodeAt(p)
  return c === 46 || c === 101 || c === 69 || (c >= 48 && c <= 57) ? -1 : p
}
